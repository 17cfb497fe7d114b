package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// This file holds what import reads of a FILE before its format's reader: whether it exists,
// the byte-order mark every reader skips, and whether a FILE given as JSON Lines is a chat
// export that --from reads, so that the error says which flag to add.

// sniffBytes is how much of a FILE import reads ahead to tell what it is.
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

// statInput returns what os.Stat does of FILE name, saying plainly that a FILE that does
// not exist does not.
func statInput(name string) (fs.FileInfo, error) {
	info, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open %s: no such file", name)
	}
	return info, err
}

// checkJSONLines returns a usage error when the JSON Lines input r, named name ("standard
// input" for "-"), is a .zip archive or a DiscordChatExporter export, which --from reads;
// path is the FILE, or "" for standard input. It reads no further than sniffBytes, and the
// byte-order mark is skipped.
func checkJSONLines(r *bufio.Reader, name, path string) error {
	skipBOM(r)
	start, _ := r.Peek(sniffBytes)
	switch {
	case bytes.HasPrefix(start, []byte("PK\x03\x04")):
		if path == "" {
			return usageErrorf("import: standard input is a .zip archive; give it as FILE with --from slack or --from discord")
		}
		tree, err := openExportTree(path)
		if err != nil {
			return usageErrorf("import: %s is a .zip archive, but neither a Slack nor a Discord export", name)
		}
		defer tree.close()
		return exportTreeError(tree.fsys, name, "a .zip archive")
	case isDCEStart(start) && path == "":
		return usageErrorf("import: standard input is a DiscordChatExporter export; save it to a file and add --from discord")
	case isDCEStart(start):
		return usageErrorf("import: %s is a DiscordChatExporter export; add --from discord", name)
	}
	return nil
}

// exportTreeError returns the usage error for FILE name, a folder or an archive (what),
// opened as fsys: which flags read it, or that it is not a file.
func exportTreeError(fsys fs.FS, name, what string) error {
	switch exportKind(fsys) {
	case "slack":
		hint := ""
		if names := slackChannelNames(fsys); len(names) > 0 {
			hint = " (its channels: " + listNames(names) + ")"
		}
		return usageErrorf("import: %s is a Slack export; add --from slack --channel NAME%s", name, hint)
	case "discord":
		return usageErrorf("import: %s is a DiscordChatExporter export; add --from discord", name)
	}
	if what == "a folder" {
		return usageErrorf("import: %s is a folder, not a JSON Lines file", name)
	}
	return usageErrorf("import: %s is %s, but neither a Slack nor a Discord export", name, what)
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
