// Package stores opens the store a database name gives, as a host that takes one name for
// either store does (the transcript command's --db): a PostgreSQL database (pgstore) for a
// postgres:// or postgresql:// URL, else a SQLite file (sqlitestore). Both are a [Store].
//
//	st, err := stores.Open(ctx, name, stores.Options{ReadOnly: true})
//
// A name is never quoted back when it is a URL, which may hold a password: an [*OpenError]
// names "the PostgreSQL database" instead.
package stores
