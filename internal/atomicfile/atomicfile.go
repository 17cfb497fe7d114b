// Package atomicfile replaces a file so that a crash leaves either the old content or the
// new, never a mix.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces the file at path with data: it writes a temporary file beside it, syncs
// it, and renames it over the old one. On an error the old file is left as it was, and the
// temporary file is removed.
func Write(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing left to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
