package importer

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// This file holds what the Slack and Discord readers share: opening an export that is a
// folder or a .zip archive, decoding its JSON files with errors that name the file, and
// collecting the bad messages of an export into one error.

// exportTree is a chat export opened for reading: a folder, or a .zip archive of one.
type exportTree struct {
	fsys  fs.FS        // rooted at the export's top: where users.json, or a channel's files, are
	close func() error // releases the archive; a no-op for a folder
}

// openExportTree opens name, a folder or a .zip archive, as a tree of files. An archive
// whose root holds no file but exactly one folder (macOS's __MACOSX and dot files aside) is
// read from inside that folder, so that zipping an export folder and zipping its contents
// read alike. The caller must call close.
func openExportTree(name string) (exportTree, error) {
	info, err := os.Stat(name)
	if err != nil {
		return exportTree{}, err
	}
	if info.IsDir() {
		return exportTree{fsys: os.DirFS(name), close: func() error { return nil }}, nil
	}
	z, err := zip.OpenReader(name)
	if err != nil {
		if errors.Is(err, zip.ErrFormat) {
			return exportTree{}, errors.New("neither a folder nor a .zip archive (or one cut short)")
		}
		return exportTree{}, err
	}
	root, err := zipRoot(z)
	if err != nil {
		z.Close()
		return exportTree{}, err
	}
	fsys := fs.FS(z)
	if root != "." {
		if fsys, err = fs.Sub(z, root); err != nil {
			z.Close()
			return exportTree{}, err
		}
	}
	return exportTree{fsys: fsys, close: z.Close}, nil
}

// zipRoot returns the folder of z that holds the export: "." or z's only top-level folder
// when the root holds no file.
func zipRoot(z fs.FS) (string, error) {
	entries, err := fs.ReadDir(z, ".")
	if err != nil {
		return "", fmt.Errorf("reading the archive: %w", err)
	}
	var dirs []string
	for _, e := range entries {
		switch {
		case e.Name() == "__MACOSX" || strings.HasPrefix(e.Name(), "."):
		case !e.IsDir():
			return ".", nil
		default:
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) == 1 {
		return dirs[0], nil
	}
	return ".", nil
}

// decodeExportFile decodes the JSON file name of fsys into v. Members v does not name are
// ignored (exports carry many); invalid JSON, invalid UTF-8, a member given twice and a
// value of the wrong JSON kind are errors that name the file, and where in it, without
// quoting its text. A missing file is an error that says so. A byte-order mark at the start
// is skipped.
func decodeExportFile(fsys fs.FS, name string, v any) error {
	f, err := fsys.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%q is missing", name)
	}
	if err != nil {
		return fmt.Errorf("%q: %w", name, err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	skipBOM(r)
	if err := json.UnmarshalRead(r, v); err != nil {
		return fmt.Errorf("%q: %s", name, describeJSONError(err))
	}
	return nil
}

// describeJSONError says what the JSON decoder found wrong in a file: where, as a JSON
// pointer ("/3/ts") or a byte offset, and what, without Go type names or the file's text;
// or that the file could not be read (a member of an archive that fails its checksum, a
// folder where a file should be).
func describeJSONError(err error) string {
	if serr, ok := errors.AsType[*json.SemanticError](err); ok {
		if _, syntactic := errors.AsType[*jsontext.SyntacticError](serr.Err); !syntactic {
			where := string(serr.JSONPointer)
			if where == "" {
				where = "/"
			}
			if serr.JSONKind != 0 {
				return fmt.Sprintf("at %q: unexpected JSON %s", where, kindName(serr.JSONKind))
			}
			return fmt.Sprintf("at %q: invalid value", where)
		}
	}
	if serr, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		if errors.Is(serr.Err, io.ErrUnexpectedEOF) {
			return "invalid JSON: the file ends inside a value"
		}
		return fmt.Sprintf("invalid JSON at byte %d: %s", serr.ByteOffset, syntaxReason(serr.Err))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "invalid JSON: the file ends inside a value"
	}
	for _, corrupt := range []error{zip.ErrChecksum, zip.ErrFormat, zip.ErrAlgorithm} {
		if errors.Is(err, corrupt) {
			return "the archive is corrupt: " + corrupt.Error()
		}
	}
	if perr, ok := errors.AsType[*fs.PathError](err); ok {
		return "unreadable: " + perr.Err.Error()
	}
	return "invalid JSON"
}

// syntaxReason words err, what a JSON syntax error found, without the text the decoder
// quotes from inside a string (an escape, a surrogate pair, a character): that is a row's
// content, an aside's maybe, which no error holds. Outside a string its words stand ("invalid
// character 'x' after top-level value").
func syntaxReason(err error) string {
	msg := err.Error()
	if !strings.HasSuffix(msg, " in string") {
		return msg
	}
	for _, label := range []string{"character", "escape sequence", "surrogate pair"} {
		if strings.HasPrefix(msg, "invalid "+label+" ") {
			return "invalid " + label + " in string"
		}
	}
	if strings.ContainsAny(msg, "`'\"") {
		return "invalid text in string"
	}
	return msg
}

// withLines returns text followed by lines, one a line; text may be empty.
func withLines(text string, lines []string) string {
	if len(lines) == 0 {
		return text
	}
	all := strings.Join(lines, "\n")
	if text == "" {
		return all
	}
	return text + "\n" + all
}

// singleLine returns s with its runs of white space (new lines among them) made single
// spaces, so that a name placed in a "[file: …]" line stays on that line.
func singleLine(s string) string { return strings.Join(strings.Fields(s), " ") }
