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

// removeSidecars leaves the database at path, as a read-only Store closes, as SQLite leaves
// a file its last connection closes: the write-ahead log copied into the database and
// removed, with the index beside it. A read-only connection can do neither, so when the log
// holds frames (a writer's, erased text among them, that the writer could not copy in at its
// close while this Store read), or when this Store made sidecars (made: those that exist
// now), it opens one connection that may write, query_only, reads the schema and closes it,
// and SQLite does both as that connection closes, if it is the file's last; while another
// process has the file open, nothing is done, and that process's last connection does it.
// It is best effort: a file this process may not write, or a sidecar it cannot remove,
// stays as SQLite would leave it.
func removeSidecars(path string, made []string) {
	logHolds := false
	if info, err := os.Lstat(sidecars(path)[0]); err == nil && info.Size() > 0 {
		logHolds = true
	}
	madeNow := false
	for _, name := range made {
		if _, err := os.Lstat(name); err == nil {
			madeNow = true
		}
	}
	if !logHolds && !madeNow {
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
