package main

import (
	"strings"
	"testing"
)

// TestTyposSuggestTheWordMeant: a typo in a subcommand, in a value a flag takes from a
// list (case aside) or in a participant's kind is a usage error that says the word meant,
// before anything is opened, as a typo in a command or a flag's name is; a value that could
// be a secret is neither quoted nor looked at.
func TestTyposSuggestTheWordMeant(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"desks", "delet", "eng"}, `desks: unknown subcommand "delet"; did you mean delete?`},
		{[]string{"desks", "--db", "x.db", "delte", "eng", "--yes"}, `desks: unknown subcommand "delte"; did you mean delete?`},
		{[]string{"token", "ad", "--as", "agent:triage"}, `token: unknown subcommand "ad"; did you mean add?`},
		{[]string{"view", "--format", "opneai"}, `--format "opneai": want text, json, openai or anthropic; did you mean openai?`},
		{[]string{"view", "--format", "JSON"}, `--format "JSON": want text, json, openai or anthropic; did you mean json?`},
		{[]string{"desks", "--format", "jsn"}, `desks --format "jsn": want text or json; did you mean json?`},
		{[]string{"import", "--from", "slak", "x.zip"}, `--from "slak": want jsonl, slack or discord; did you mean slack?`},
		{[]string{"digest", "--digester", "extractiv"}, `--digester "extractiv": want extractive or openai; did you mean extractive?`},
		{[]string{"serve", "--log-format", "jsno"}, `serve: --log-format "jsno": want text or json; did you mean json?`},
		{[]string{"view", "--as", "agnet:triage"}, `"agnet:triage" is not ` + authorSyntax + "; did you mean agent:triage?"},
		{[]string{"view", "--format", "trs_WmD-O0F3h5mdNXWzjqPg9YQKzYqhjCOF"}, "--format (not quoted: it could be a secret): want text, json, openai or anthropic"},
	} {
		code, stdout, stderr := runInProcess("", tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("transcript %s: exit %d\n%s\nwant exit 2 saying %s", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}
