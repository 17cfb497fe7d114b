package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// This file holds how import tells what a file is before its format's reader reads it: the
// byte-order mark every reader skips, and whether a file given as JSON Lines is a chat
// export, so that the error says so.

// sniffBytes is how much of a JSON Lines input OpenJSONLines reads ahead to tell what it is.
const sniffBytes = 64 << 10

// utf8BOM is the byte-order mark some editors (Windows Notepad among them) begin UTF-8 with.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// skipBOM discards a UTF-8 byte-order mark at the start of r. A read error is left for the
// next read to report.
func skipBOM(r *bufio.Reader) {
	if start, _ := r.Peek(len(utf8BOM)); bytes.Equal(start, utf8BOM) {
		r.Discard(len(utf8BOM))
	}
}

// exportKind returns which chat export fsys holds: "slack" when it holds users.json,
// org_users.json or channels.json, or a folder of day files; "discord" when a .json file at
// its top begins as DiscordChatExporter's do; else "". It looks into the first maxSniffed
// entries of the top only.
func exportKind(fsys fs.FS) string {
	for _, name := range []string{"users.json", "org_users.json", "channels.json"} {
		if _, err := fs.Stat(fsys, name); err == nil {
			return "slack"
		}
	}
	entries, _ := fs.ReadDir(fsys, ".")
	for _, e := range entries[:min(len(entries), maxSniffed)] {
		switch {
		case e.IsDir() && holdsSlackDays(fsys, e.Name()):
			return "slack"
		case !e.IsDir() && strings.EqualFold(path.Ext(e.Name()), ".json") && isDCEFile(fsys, e.Name()):
			return "discord"
		}
	}
	return ""
}

// maxSniffed is how many entries of a folder exportKind looks into: an export's lists, or
// its first channel's files, come early.
const maxSniffed = 100

// holdsSlackDays reports whether the folder dir of fsys holds a Slack day file.
func holdsSlackDays(fsys fs.FS, dir string) bool {
	entries, _ := fs.ReadDir(fsys, dir)
	for _, e := range entries {
		if !e.IsDir() && slackDayFile.MatchString(e.Name()) {
			return true
		}
	}
	return false
}

// isDCEFile reports whether the file name of fsys begins as a DiscordChatExporter export.
func isDCEFile(fsys fs.FS, name string) bool {
	f, err := fsys.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	start, _ := io.ReadAll(io.LimitReader(f, sniffBytes))
	return isDCEStart(bytes.TrimPrefix(start, utf8BOM))
}

// isDCEStart reports whether start, the beginning of a file, is the beginning of a JSON
// object with the "guild" and "channel" objects a DiscordChatExporter export opens with. A
// JSON Lines line holds neither key.
func isDCEStart(start []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(start))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return false
	}
	var guild, channel bool
	for {
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() != '"' {
			return false
		}
		switch tok.String() {
		case "guild":
			guild = dec.PeekKind() == '{'
		case "channel":
			channel = dec.PeekKind() == '{'
		}
		if guild && channel {
			return true
		}
		if err := dec.SkipValue(); err != nil {
			return false
		}
	}
}

// FormatError reports an input given as JSON Lines that is not: a chat export, an archive
// that is neither a Slack nor a Discord export, or a folder.
type FormatError struct {
	Name     string // the file as given, or "standard input"
	Stdin    bool   // the input is standard input
	Is       string // what it is: "a .zip archive", "a folder" or "a DiscordChatExporter export"
	Kind     string // the export it holds, which Slack or Discord reads: "slack", "discord", or ""
	Channels string // for a Slack export, its channels: sorted, comma-separated, the first 20 and how many more
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("importer: %s is %s, not JSON Lines", e.Name, e.Is)
}

// OpenJSONLines opens the JSON Lines file at path, or reads stdin for "-", as a Source of
// its size when known; the caller must close what it returns. A byte-order mark at the
// start is skipped. A folder, a .zip archive and a DiscordChatExporter export are a
// *FormatError that says which export it is; it reads no further than 64 KiB to tell.
func OpenJSONLines(path string, stdin io.Reader) (Source, io.Closer, error) {
	if path == "-" {
		in := bufio.NewReaderSize(stdin, sniffBytes)
		if err := checkJSONLines(in, "standard input", ""); err != nil {
			return nil, nil, err
		}
		return jsonLines{r: in, bomSeen: true}, io.NopCloser(nil), nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if info.IsDir() {
		return nil, nil, exportTreeError(os.DirFS(path), path, "a folder")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	in := bufio.NewReaderSize(f, sniffBytes)
	if err := checkJSONLines(in, path, path); err != nil {
		f.Close()
		return nil, nil, err
	}
	return jsonLines{r: in, bytes: info.Size(), bomSeen: true}, f, nil
}

// checkJSONLines returns a *FormatError when the JSON Lines input r, named name, is a .zip
// archive or a DiscordChatExporter export; path is the file, or "" for standard input. It
// reads no further than sniffBytes, and the byte-order mark is skipped.
func checkJSONLines(r *bufio.Reader, name, path string) error {
	skipBOM(r)
	start, _ := r.Peek(sniffBytes)
	switch {
	case bytes.HasPrefix(start, []byte("PK\x03\x04")):
		if path == "" {
			return &FormatError{Name: name, Stdin: true, Is: "a .zip archive"}
		}
		tree, err := openExportTree(path)
		if err != nil {
			return &FormatError{Name: name, Is: "a .zip archive"}
		}
		defer tree.close()
		return exportTreeError(tree.fsys, name, "a .zip archive")
	case isDCEStart(start):
		return &FormatError{Name: name, Stdin: path == "", Is: "a DiscordChatExporter export", Kind: "discord"}
	}
	return nil
}

// exportTreeError returns the *FormatError of name, a folder or an archive (what), opened
// as fsys.
func exportTreeError(fsys fs.FS, name, what string) error {
	e := &FormatError{Name: name, Is: what, Kind: exportKind(fsys)}
	if names := slackChannelNames(fsys); e.Kind == "slack" && len(names) > 0 {
		e.Channels = listNames(names)
	}
	return e
}
