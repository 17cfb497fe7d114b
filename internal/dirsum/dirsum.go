// Package dirsum lets a test show that something wrote nothing in a directory.
package dirsum

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
)

// Of returns the names of dir's entries, each with the SHA-256 of its bytes (a
// subdirectory's is of no bytes): equal maps before and after mean nothing was created,
// removed or changed in dir itself. It fails tb if dir cannot be read.
func Of(tb testing.TB, dir string) map[string][32]byte {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	sums := make(map[string][32]byte, len(entries))
	for _, e := range entries {
		var data []byte
		if !e.IsDir() {
			if data, err = os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
				tb.Fatal(err)
			}
		}
		sums[e.Name()] = sha256.Sum256(data)
	}
	return sums
}
