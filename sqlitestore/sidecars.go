package sqlitestore

import (
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
)

// sidecars are the files SQLite keeps beside the database at path in WAL mode: the
// write-ahead log and its index.
func sidecars(path string) [2]string { return [2]string{path + "-wal", path + "-shm"} }

// sidecarsExist reports whether both of the database's sidecars exist.
func sidecarsExist(path string) bool {
	for _, name := range sidecars(path) {
		if _, err := os.Lstat(name); err != nil {
			return false
		}
	}
	return true
}

// absentSidecars returns those of the database's sidecars that do not exist.
func absentSidecars(path string) []string {
	var absent []string
	for _, name := range sidecars(path) {
		if _, err := os.Lstat(name); err != nil {
			absent = append(absent, name)
		}
	}
	return absent
}

// removeSidecars removes the sidecars a read-only Store made beside the database at path
// (SQLite creates them to read a WAL-mode file, and a read-only connection cannot remove
// them): those in made that exist now, and only while the write-ahead log is empty. It leaves
// the removing to SQLite, which does it as the last connection to the file closes: it opens
// one connection that may write, query_only, reads the schema and closes it. With the log
// empty, that close has nothing to copy into the database; while another process has the
// file open, it removes nothing. It is best effort: a sidecar it cannot remove stays, as
// SQLite would leave it.
func removeSidecars(path string, made []string) {
	var now []string
	for _, name := range made {
		if _, err := os.Lstat(name); err == nil {
			now = append(now, name)
		}
	}
	if len(now) == 0 {
		return
	}
	if info, err := os.Lstat(sidecars(path)[0]); err == nil && info.Size() > 0 {
		return
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return
	}
	q := url.Values{}
	q.Set("mode", "rw") // never create the database, were it removed meanwhile
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open(driverName, (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}).String())
	if err != nil {
		return
	}
	var n int
	db.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n)
	db.Close()
}
