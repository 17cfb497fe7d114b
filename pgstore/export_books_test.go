package pgstore

// The book statements, for the EXPLAIN tests.
const (
	LoadBookSQL   = loadBookSQL
	InsertBookSQL = insertBookSQL
	UpdateBookSQL = updateBookSQL
)
