package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/sharedesk/transcript/importer"
)

// This file holds what import reads of a FILE before its format's reader: whether it exists,
// and whether a FILE given as JSON Lines is a chat export that --from reads, so that the
// error says which flag to add.

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
// path is the FILE, or "" for standard input. It reads no further than importer.SniffBytes, and the
// byte-order mark is skipped.
func checkJSONLines(r *bufio.Reader, name, path string) error {
	importer.SkipBOM(r)
	start, _ := r.Peek(importer.SniffBytes)
	switch {
	case bytes.HasPrefix(start, []byte("PK\x03\x04")):
		if path == "" {
			return usageErrorf("import: standard input is a .zip archive; give it as FILE with --from slack or --from discord")
		}
		fsys, closeTree, err := importer.OpenExport(path)
		if err != nil {
			return usageErrorf("import: %s is a .zip archive, but neither a Slack nor a Discord export", name)
		}
		defer closeTree()
		return exportTreeError(fsys, name, "a .zip archive")
	case importer.IsDiscordStart(start) && path == "":
		return usageErrorf("import: standard input is a DiscordChatExporter export; save it to a file and add --from discord")
	case importer.IsDiscordStart(start):
		return usageErrorf("import: %s is a DiscordChatExporter export; add --from discord", name)
	}
	return nil
}

// exportTreeError returns the usage error for FILE name, a folder or an archive (what),
// opened as fsys: which flags read it, or that it is not a file.
func exportTreeError(fsys fs.FS, name, what string) error {
	switch importer.ExportKind(fsys) {
	case "slack":
		hint := ""
		if names := importer.SlackChannels(fsys); names != "" {
			hint = " (its channels: " + names + ")"
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
