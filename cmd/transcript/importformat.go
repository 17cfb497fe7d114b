package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/sharedesk/transcript/importer"
)

// This file holds what import says of a FILE before its format's reader: whether it exists,
// and, when a FILE given as JSON Lines is a chat export that --from reads, which flag to add.

// statInput returns what os.Stat does of FILE name, saying plainly that a FILE that does
// not exist does not.
func statInput(name string) (fs.FileInfo, error) {
	info, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open %s: no such file", name)
	}
	return info, err
}

// formatUsage returns, for an importer.FormatError, the usage error that says which flags
// read the FILE; any other error as it is.
func formatUsage(err error) error {
	fe, ok := errors.AsType[*importer.FormatError](err)
	switch {
	case !ok:
		return err
	case fe.Kind == "slack":
		hint := ""
		if fe.Channels != "" {
			hint = " (its channels: " + fe.Channels + ")"
		}
		return usageErrorf("import: %s is a Slack export; add --from slack --channel NAME%s", fe.Name, hint)
	case fe.Kind == "discord" && fe.Stdin:
		return usageErrorf("import: standard input is a DiscordChatExporter export; save it to a file and add --from discord")
	case fe.Kind == "discord":
		return usageErrorf("import: %s is a DiscordChatExporter export; add --from discord", fe.Name)
	case fe.Stdin:
		return usageErrorf("import: standard input is a .zip archive; give it as FILE with --from slack or --from discord")
	case fe.Is == "a folder":
		return usageErrorf("import: %s is a folder, not a JSON Lines file", fe.Name)
	}
	return usageErrorf("import: %s is %s, but neither a Slack nor a Discord export", fe.Name, fe.Is)
}
