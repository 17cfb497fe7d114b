// Package exportfixture copies and zips the chat export fixtures the import tests read.
package exportfixture

import (
	"archive/zip"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Copy copies the folder dir into a temporary folder and returns it.
func Copy(t testing.TB, dir string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "export")
	if err := os.CopyFS(to, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return to
}

// Zip writes the files under dir to a new zip archive name, each under top.
func Zip(t testing.TB, name, dir, top string) {
	t.Helper()
	out, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	z := zip.NewWriter(out)
	err = fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			return err
		}
		w, err := z.Create(top + p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes text to the file name.
func WriteFile(t testing.TB, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Remove removes name, and what it holds, from the folder dir.
func Remove(t testing.TB, dir, name string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}
