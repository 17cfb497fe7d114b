package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "version", "", `
Print the command's module version and the VCS revision it was built from, as the Go
toolchain recorded them in the binary ("(devel)" and no revision for a build that recorded
none, such as go run). transcript --version prints the same.`)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	_, err := fmt.Fprintln(e.stdout, versionLine())
	return err
}

// versionLine is what version prints: the module path and version, then the VCS revision,
// its time and whether the tree was modified, when the build recorded them, and the Go
// version.
func versionLine() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "transcript (no build information)"
	}
	line := fmt.Sprintf("transcript %s %s", info.Main.Path, info.Main.Version)
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	if revision := vcs["vcs.revision"]; revision != "" {
		line += " revision " + revision
		if at := vcs["vcs.time"]; at != "" {
			line += " (" + at + ")"
		}
		if vcs["vcs.modified"] == "true" {
			line += " modified"
		}
	}
	return line + " " + info.GoVersion
}
