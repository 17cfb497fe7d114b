package main

import (
	"archive/zip"
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/sharedesk/transcript"
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
			return exportTree{}, errors.New("neither a folder nor a .zip archive")
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
// pointer ("/3/ts") or a byte offset, and what, without Go type names or the file's text.
func describeJSONError(err error) string {
	if serr, ok := errors.AsType[*json.SemanticError](err); ok {
		if _, syntactic := errors.AsType[*jsontext.SyntacticError](serr.Err); !syntactic {
			where := string(serr.JSONPointer)
			if where == "" {
				where = "/"
			}
			if serr.JSONKind != 0 {
				return fmt.Sprintf("at %q: unexpected JSON %s", where, jsonKindName(serr.JSONKind))
			}
			return fmt.Sprintf("at %q: invalid value", where)
		}
	}
	if serr, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		if errors.Is(serr.Err, io.ErrUnexpectedEOF) {
			return "invalid JSON: the file ends inside a value"
		}
		return fmt.Sprintf("invalid JSON at byte %d: %v", serr.ByteOffset, serr.Err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "invalid JSON: the file ends inside a value"
	}
	return "invalid JSON"
}

// exportProblems collects what is wrong with an export's messages, each named by where it
// is, so that one error reports them all, as import reports every bad line: the first
// maxReported in the export's order, and how many more there were.
type exportProblems struct {
	listed []exportProblem // ascending order, at most maxReported
	n      int
}

type exportProblem struct {
	order int
	text  string
}

// add records one problem of the message at position order in the export (the order its
// files and messages are read in): where names it (an importRow's Where), the rest says
// what is wrong without quoting the message.
func (p *exportProblems) add(order int, where, format string, args ...any) {
	p.n++
	if len(p.listed) == maxReported && order >= p.listed[len(p.listed)-1].order {
		return
	}
	i, _ := slices.BinarySearchFunc(p.listed, order, func(e exportProblem, order int) int { return cmp.Compare(e.order, order+1) })
	p.listed = slices.Insert(p.listed, i, exportProblem{order, where + ": " + fmt.Sprintf(format, args...)})
	if len(p.listed) > maxReported {
		p.listed = p.listed[:maxReported]
	}
}

// err returns nil when nothing was added, else an error listing the problems kept and
// counting the rest.
func (p *exportProblems) err() error {
	switch {
	case p.n == 0:
		return nil
	case p.n == 1:
		return errors.New(p.listed[0].text)
	}
	list := make([]string, 0, len(p.listed)+1)
	for _, e := range p.listed {
		list = append(list, e.text)
	}
	if p.n > len(list) {
		list = append(list, fmt.Sprintf("and %d more bad messages", p.n-len(list)))
	}
	return fmt.Errorf("%d bad messages:\n  %s", p.n, strings.Join(list, "\n  "))
}

// storeTextProblem says what keeps m from being stored, naming the field but never quoting
// it: invalid UTF-8 or a NUL byte (no store takes one) in its content, author id or label.
// It returns "" when m's texts are fine.
func storeTextProblem(m transcript.Message) string {
	for _, f := range []struct{ name, text string }{{"content", m.Content}, {"author id", m.Author.ID}, {"author name", m.Author.Label}} {
		switch {
		case !utf8.ValidString(f.text):
			return "its " + f.name + " is not valid UTF-8"
		case strings.IndexByte(f.text, 0) >= 0:
			return "its " + f.name + " holds a NUL byte, which the stores refuse"
		}
	}
	return ""
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

// jsonKindName names a kind of JSON value for an error message.
func jsonKindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}
