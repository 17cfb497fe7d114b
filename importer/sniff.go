package importer

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// This file holds how import tells what a file is before its format's reader reads it: the
// byte-order mark every reader skips, and which chat export a folder or an archive holds.

// SniffBytes is how much of a file's start tells what it is: IsDiscordStart needs no more.
const SniffBytes = 64 << 10

// utf8BOM is the byte-order mark some editors (Windows Notepad among them) begin UTF-8 with.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// SkipBOM discards a UTF-8 byte-order mark at the start of r. A read error is left for the
// next read to report.
func SkipBOM(r *bufio.Reader) {
	if start, _ := r.Peek(len(utf8BOM)); bytes.Equal(start, utf8BOM) {
		r.Discard(len(utf8BOM))
	}
}

// ExportKind returns which chat export fsys holds: "slack" when it holds users.json,
// org_users.json or channels.json, or a folder of day files; "discord" when a .json file at
// its top begins as DiscordChatExporter's do; else "". It looks into the first maxSniffed
// entries of the top only.
func ExportKind(fsys fs.FS) string {
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

// maxSniffed is how many entries of a folder ExportKind looks into: an export's lists, or
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
	start, _ := io.ReadAll(io.LimitReader(f, SniffBytes))
	return IsDiscordStart(bytes.TrimPrefix(start, utf8BOM))
}

// IsDiscordStart reports whether start, the beginning of a file, is the beginning of a JSON
// object with the "guild" and "channel" objects a DiscordChatExporter export opens with. A
// JSON Lines line holds neither key.
func IsDiscordStart(start []byte) bool {
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

// OpenExport opens name, a folder or a .zip archive, as the tree of files the Slack and
// Discord readers read: an archive whose root holds no file but one folder is read from
// inside it. The caller must call close.
func OpenExport(name string) (fsys fs.FS, close func() error, err error) {
	tree, err := openExportTree(name)
	if err != nil {
		return nil, nil, err
	}
	return tree.fsys, tree.close, nil
}

// SlackChannels lists the channels the Slack export fsys names, for an error message:
// sorted, comma-separated, the first 20 and how many more; "" when it names none.
func SlackChannels(fsys fs.FS) string {
	if names := slackChannelNames(fsys); len(names) > 0 {
		return listNames(names)
	}
	return ""
}
