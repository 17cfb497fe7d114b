// Package dbflag is how the transcript command names and opens a store: its flags --db (a
// SQLite file or a postgres:// URL, by default what TRANSCRIPT_DB names, else
// transcript.db), --desk, --read-db and --init-db, and the ways a command opens what they
// name. A command that writes opens with [Flags.Open], which creates a missing SQLite file
// and initializes or migrates the store; one that only reads with [Flags.OpenRead], which
// changes nothing; one that writes to a database that must be there already with
// [Flags.OpenExisting]; one that writes to one desk with [Flags.OpenForDesk], which
// refuses a desk the database does not hold unless the command's --create says it is
// meant. [Flags.OpenThread] and [Flags.CheckThreadFor] refuse a --thread the desk does not
// hold, or that the viewer may not read. The open methods return a nil store (an untyped
// nil) with an error.
//
// Its refusals of a command line are usage errors (cliflag.ErrUsage); a store it cannot
// open is a *stores.OpenError, with a [HintError] that says what to do about it where
// there is something to do. It never quotes a postgres:// URL back: it may hold a
// password; what it prints of a --db it prints as cliflag.PrintableDSN does, a password
// xxxxx. A --db that is a key/value connection string ("host=db dbname=chat") is refused:
// a PostgreSQL --db is a URL.
package dbflag
