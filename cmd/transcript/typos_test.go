package main

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dbflag"
)

// runWithEnv runs the built command in c's directory with env added to the test's own
// environment, and returns what it did.
func (c *cli) runWithEnv(env []string, args ...string) result {
	c.t.Helper()
	cmd := exec.Command(binary(c.t), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	if exit, ok := err.(*exec.ExitError); ok {
		r.code = exit.ExitCode()
	} else if err != nil {
		c.t.Fatalf("transcript %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// TestWritersRefuseAMissingDesk: append, edit, redact, token add and mcp refuse a desk the
// database does not hold, naming the desks it holds and, where the command can make it,
// --create; they write nothing, token add makes no token and mcp serves nothing. With
// --create append makes the desk and says so; import says so when it makes one.
func TestWritersRefuseAMissingDesk(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		c.ok("append", "--desk", "eng", "--create", "--as", "person:ana:Ana", "hello")
		createHint := `no desk "egn"; the desks are: eng (add --create to make desk "egn")`
		for _, args := range [][]string{
			{"append", "--desk", "egn", "--as", "person:ana", "hi"},
			{"token", "add", "--desk", "egn", "--as", "agent:triage"},
			{"mcp", "--desk", "egn", "--as", "agent:triage"},
		} {
			full := args
			if args[0] == "token" { // cli puts --db after the first word
				full = append([]string{"token", "add"}, args[2:]...)
				if c.db != "" {
					full = append(full, "--db", c.db)
				}
				r := c.runWithEnv(nil, full...)
				if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, createHint) {
					t.Errorf("want exit 1 naming the desks and --create, got:\n%s", r)
				}
				continue
			}
			r := c.run(full...)
			if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, createHint) {
				t.Errorf("want exit 1 naming the desks and --create, got:\n%s", r)
			}
		}
		for _, args := range [][]string{
			{"edit", "--desk", "egn", "--as", "person:ana", "1", "hi"},
			{"redact", "--desk", "egn", "1"},
		} {
			if r := c.run(args...); r.code != exitError || !strings.Contains(r.stderr, `no desk "egn"; the desks are: eng`) {
				t.Errorf("want exit 1 naming the desks, got:\n%s", r)
			}
		}
		if out := c.ok("desks"); strings.Contains(out, "egn") {
			t.Errorf("the refused writes made desk egn:\n%s", out)
		}
		tokenList := []string{"token", "list"}
		if c.db != "" {
			tokenList = append(tokenList, "--db", c.db)
		}
		if r := c.runWithEnv(nil, tokenList...); r.code != exitOK || r.stdout != "" {
			t.Errorf("the refused token add made a token:\n%s", r)
		}

		r := c.want(exitOK, "append", "--desk", "egn", "--create", "--as", "person:ana", "hi")
		if r.stdout != "1\n" || !strings.Contains(r.stderr, `created desk "egn"`) {
			t.Errorf("append --create of a new desk:\n%s", r)
		}
		if r := c.want(exitOK, "append", "--desk", "egn", "--create", "--as", "person:ana", "again"); strings.Contains(r.stderr, "created desk") {
			t.Errorf("append --create to a desk that is there says it made it:\n%s", r)
		}

		file := c.writeFile("ops.jsonl", []byte(flowDesk))
		if r := c.want(exitOK, "import", "--desk", "ops", file); !strings.Contains(r.stderr, `created desk "ops"`) {
			t.Errorf("import into a new desk does not say it made it:\n%s", r)
		}
		if r := c.want(exitOK, "import", "--desk", "ops", file); strings.Contains(r.stderr, "created desk") {
			t.Errorf("import into a desk that is there says it made it:\n%s", r)
		}
	})
}

// TestTyposCreateNoDatabase: run from a directory without a database, append and token add
// refuse, create nothing and say how to make one; mcp too. Every command that does create
// a database says so on standard error, with the directory it made it in: import, append
// and token add with --create, mcp with --create, demo.
func TestTyposCreateNoDatabase(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	for _, args := range [][]string{
		{"append", "--desk", "eng", "hi"},
		{"token", "add", "--desk", "eng", "--as", "agent:triage"},
		{"mcp", "--desk", "eng", "--as", "agent:triage"},
	} {
		r := c.want(exitError, args...)
		if !strings.Contains(r.stderr, `no database at transcript.db, so no desk "eng" (add --create to make both`) {
			t.Errorf("want the refusal to name the database and --create:\n%s", r)
		}
		if fileExists(c.path(dbflag.Default)) {
			t.Fatalf("%v created %s", args, dbflag.Default)
		}
	}
	abs, err := filepath.EvalSymlinks(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	file := c.writeFile("desk.jsonl", []byte(flowDesk))
	for _, args := range [][]string{
		{"import", "--db", "a.db", "--desk", "eng", file},
		{"append", "--db", "b.db", "--desk", "eng", "--create", "hi"},
		{"token", "add", "--db", "c.db", "--desk", "eng", "--create", "--as", "agent:triage"},
		{"mcp", "--db", "d.db", "--desk", "eng", "--create", "--as", "agent:triage"},
		{"demo", "--db", "e.db"},
	} {
		r := c.want(exitOK, args...)
		db := args[slices.Index(args, "--db")+1]
		if want := "created a new database at " + db + " ("; !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, filepath.Join(abs, db)) && !strings.Contains(r.stderr, filepath.Join(c.dir, db)) {
			t.Errorf("want %q and the file's full path on standard error, got:\n%s", want, r)
		}
		if r := c.want(exitOK, args...); strings.Contains(r.stderr, "created a new database") {
			t.Errorf("run again, it says it created the database:\n%s", r)
		}
	}
}

// TestTranscriptDBNamesTheDefault: TRANSCRIPT_DB names the database of every command that
// is given no --db; --db still wins; help shows the default, not the variable's value.
func TestTranscriptDBNamesTheDefault(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	db := filepath.Join(t.TempDir(), "elsewhere.db")
	env := []string{dbflag.Env + "=" + db}
	if r := c.runWithEnv(env, "append", "--desk", "eng", "--create", "hi"); r.code != exitOK || r.stdout != "1\n" {
		t.Fatalf("append with %s:\n%s", dbflag.Env, r)
	}
	if fileExists(c.path(dbflag.Default)) || !fileExists(db) {
		t.Fatalf("append with %s=%s wrote ./%s (%v) or not the named file (%v)", dbflag.Env, db, dbflag.Default, fileExists(c.path(dbflag.Default)), fileExists(db))
	}
	for _, args := range [][]string{
		{"view", "--desk", "eng"},
		{"desks"},
		{"export", "--desk", "eng"},
		{"search", "--desk", "eng", "hi"},
	} {
		if r := c.runWithEnv(env, args...); r.code != exitOK || !strings.Contains(r.stdout, "eng") && !strings.Contains(r.stdout, "hi") {
			t.Errorf("%v with %s:\n%s", args, dbflag.Env, r)
		}
	}
	if r := c.runWithEnv(env, "token", "add", "--desk", "eng", "--as", "agent:triage"); r.code != exitOK {
		t.Errorf("token add with %s:\n%s", dbflag.Env, r)
	}
	if r := c.runWithEnv(env, "token", "list"); r.code != exitOK || !strings.Contains(r.stdout, "agent:triage") {
		t.Errorf("token list with %s:\n%s", dbflag.Env, r)
	}
	other := c.path("other.db")
	if r := c.runWithEnv(env, "view", "--db", other); r.code != exitError || !strings.Contains(r.stderr, "no database at "+other) {
		t.Errorf("--db does not win over %s:\n%s", dbflag.Env, r)
	}
	if r := c.runWithEnv([]string{dbflag.Env + "=postgres://ana:s3cret-pw@127.0.0.1:1/x"}, "help", "append"); r.code != exitOK || strings.Contains(r.stdout, "s3cret") || !strings.Contains(r.stdout, `(default "transcript.db")`) {
		t.Errorf("help with %s set shows its value, or not the default:\n%s", dbflag.Env, r)
	}
	if out := c.ok("help"); !strings.Contains(out, dbflag.Env) {
		t.Errorf("help does not name %s:\n%s", dbflag.Env, out)
	}
}

// TestUnseenParticipantNotes: append --as, token add --as and mcp --as a participant the
// desk has not seen go on, and say so on standard error, naming the desk's participants of
// that kind; one it has seen (as an author, an aside's reader or a token's participant) gets
// no note.
func TestUnseenParticipantNotes(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	c.ok("append", "--desk", "eng", "--create", "--as", "person:ana:Ana", "--to", "agent:scribe", "hello")
	c.ok("append", "--desk", "eng", "--as", "agent:triage:Triage", "on it")
	r := c.want(exitOK, "append", "--desk", "eng", "--as", "agent:traige", "typo")
	if r.stdout != "3\n" || !strings.Contains(r.stderr, "note: desk eng has not seen agent:traige before; the agents it has seen: agent:scribe, agent:triage (Triage)") {
		t.Errorf("append as an unseen agent:\n%s", r)
	}
	r = c.want(exitOK, "token", "add", "--desk", "eng", "--as", "person:an")
	if !strings.Contains(r.stderr, "note: desk eng has not seen person:an before; the people it has seen: person:ana (Ana)") {
		t.Errorf("token add for an unseen person:\n%s", r)
	}
	r = c.want(exitOK, "mcp", "--desk", "eng", "--as", "agent:triag") // standard input empty: the session ends at once
	if !strings.Contains(r.stderr, "note: desk eng has not seen agent:triag before; the agents it has seen: agent:scribe, agent:traige, agent:triage (Triage)") {
		t.Errorf("mcp as an unseen agent:\n%s", r)
	}
	r = c.want(exitOK, "token", "add", "--desk", "eng", "--as", "system:deploy")
	if !strings.Contains(r.stderr, "note: desk eng has not seen system:deploy before, and no system participants at all") {
		t.Errorf("token add for the first system participant:\n%s", r)
	}
	for _, args := range [][]string{
		{"append", "--desk", "eng", "--as", "agent:triage", "seen: an author"},
		{"append", "--desk", "eng", "--as", "agent:scribe", "seen: an aside's reader"},
		{"append", "--desk", "eng", "--as", "person:an", "seen: a token's participant"},
		{"append", "--desk", "eng", "--as", "operator", "the operator"},
		{"token", "add", "--desk", "eng", "--as", "agent:triage"},
		{"mcp", "--desk", "eng", "--as", "agent:triage"},
	} {
		if r := c.want(exitOK, args...); strings.Contains(r.stderr, "note:") {
			t.Errorf("a participant the desk has seen gets a note:\n%s", r)
		}
	}
}

// TestDesksDelete: desks delete refuses a desk that tokens are for without
// --revoke-tokens, and any desk without --yes, deleting nothing; then deletes the desk, its
// search index and its tokens, leaving the other desk as it was; the name makes a new desk
// from row 1 whose rows hold nothing of the old one's.
func TestDesksDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		db := newDB(t)
		c := newCLI(t, db)
		file := c.writeFile("eng.jsonl", []byte(flowDesk))
		c.ok("import", "--desk", "eng", file)
		c.ok("import", "--desk", "ops", file)
		c.ok("append", "--desk", "eng", "--to", "agent:x", "SECRETWORD for x")
		tok := func(desk string) {
			if r := c.runWithEnv(nil, "token", "add", "--db", db, "--desk", desk, "--as", "agent:x"); r.code != exitOK {
				t.Fatalf("token add:\n%s", r)
			}
		}
		tok("eng")
		tok("ops")
		before := c.ok("export", "--desk", "ops")

		r := c.want(exitError, "desks", "delete", "eng", "--yes")
		if !strings.Contains(r.stderr, "1 token is for desk eng (tok_") || !strings.Contains(r.stderr, "--revoke-tokens") {
			t.Errorf("delete of a desk with a token:\n%s", r)
		}
		r = c.want(exitUsage, "desks", "delete", "eng", "--revoke-tokens")
		if !strings.Contains(r.stderr, "desk eng holds 9 rows and 1 token, which deleting it erases for good; add --yes") {
			t.Errorf("delete without --yes:\n%s", r)
		}
		if out := c.ok("desks"); !strings.Contains(out, "eng   9") {
			t.Errorf("a refused delete changed the desks:\n%s", out)
		}
		r = c.want(exitError, "desks", "delete", "egn", "--yes")
		if !strings.Contains(r.stderr, `no desk "egn"; the desks are: eng, ops`) {
			t.Errorf("delete of a desk not there:\n%s", r)
		}

		r = c.want(exitOK, "desks", "delete", "eng", "--yes", "--revoke-tokens")
		if !strings.Contains(r.stderr, "deleted desk eng: 9 rows and 1 token") {
			t.Errorf("delete:\n%s", r)
		}
		if out := c.ok("desks"); out != "DESK  ROWS  NEWEST\nops   8     #8\n" {
			t.Errorf("desks after the delete:\n%s", out)
		}
		list := c.runWithEnv(nil, "token", "list", "--db", db, "--format", "json")
		var toks []tokenJSON
		if err := json.Unmarshal([]byte(list.stdout), &toks); err != nil || len(toks) != 1 || toks[0].Desk != "ops" {
			t.Errorf("token list after the delete: %+v, %v:\n%s", toks, err, list)
		}
		for _, args := range [][]string{{"view", "--desk", "eng"}, {"search", "--desk", "eng", "SECRETWORD"}, {"export", "--desk", "eng"}} {
			if r := c.want(exitError, args...); !strings.Contains(r.stderr, `no desk "eng"`) {
				t.Errorf("%v after the delete:\n%s", args, r)
			}
		}
		if after := c.ok("export", "--desk", "ops"); after != before {
			t.Errorf("deleting eng changed ops: before\n%s\nafter\n%s", before, after)
		}

		if out := c.ok("append", "--desk", "eng", "--create", "--to", "agent:x", "anew"); out != "1\n" {
			t.Errorf("the first row of the desk made anew is %q, want 1", out)
		}
		for range 9 {
			c.ok("append", "--desk", "eng", "--to", "agent:x", "filler")
		}
		for _, as := range []string{"operator", "agent:x"} {
			if out := c.ok("search", "--desk", "eng", "--as", as, "SECRETWORD"); strings.Contains(out, "#") {
				t.Errorf("search of the desk made anew as %s finds the deleted desk's word:\n%s", as, out)
			}
		}
	})
}

// TestVersion: transcript version and transcript --version print the module and, for a
// build from a checkout, the revision it was built from.
func TestVersion(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	out := c.ok("version")
	if !strings.HasPrefix(out, "transcript github.com/sharedesk/transcript ") || !strings.Contains(out, " go1.") {
		t.Errorf("version printed %q, want the module path and version and the Go version", out)
	}
	info, err := buildinfo.ReadFile(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, " "+info.Main.Version+" ") {
		t.Errorf("version printed %q, want the module version %s", out, info.Main.Version)
	}
	for _, s := range info.Settings { // a build from a checkout, without -buildvcs=false
		if s.Key == "vcs.revision" && !strings.Contains(out, "revision "+s.Value) {
			t.Errorf("version printed %q, want the revision %s", out, s.Value)
		}
	}
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		if got := c.ok(args...); got != out {
			t.Errorf("%v printed %q, want what version prints, %q", args, got, out)
		}
	}
	if r := c.want(exitUsage, "version", "extra"); !strings.Contains(r.stderr, "version takes no arguments") {
		t.Errorf("version with an argument:\n%s", r)
	}
}

// TestListsAsJSON: desks and token list take --format json: an array of objects, [] for
// none, never a token's secret or hash; another format is a usage error.
func TestListsAsJSON(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	c.ok("append", "--desk", "eng", "--create", "a <b> & c")
	c.ok("append", "--desk", "eng", "two")
	c.ok("append", "--desk", "ops", "--create", "one")
	var desks []deskJSON
	if out := c.ok("desks", "--format", "json"); json.Unmarshal([]byte(out), &desks) != nil || len(desks) != 2 ||
		desks[0] != (deskJSON{Desk: "eng", Rows: 2, Newest: 2}) || desks[1] != (deskJSON{Desk: "ops", Rows: 1, Newest: 1}) {
		t.Errorf("desks --format json = %+v:\n%s", desks, out)
	}
	if out := c.ok("token", "list", "--format", "json"); out != "[]\n" {
		t.Errorf("token list --format json of no token = %q, want []", out)
	}
	secret := strings.TrimSpace(c.ok("token", "add", "--desk", "eng", "--as", "agent:triage:Triage"))
	c.ok("token", "add", "--desk", "ops", "--as", "person:ana")
	out := c.ok("token", "list", "--format", "json")
	var toks []tokenJSON
	if err := json.Unmarshal([]byte(out), &toks); err != nil || len(toks) != 2 {
		t.Fatalf("token list --format json: %v:\n%s", err, out)
	}
	if toks[0].Desk != "eng" || toks[0].Participant != transcript.Agent("triage", "Triage") || toks[0].Revoked != nil || toks[0].Created.IsZero() || !strings.HasPrefix(toks[0].ID, "tok_") {
		t.Errorf("token list --format json: %+v", toks[0])
	}
	if strings.Contains(out, secret) || strings.Contains(out, "trs_") || strings.Contains(out, "hash") {
		t.Errorf("token list --format json holds a secret or a hash:\n%s", out)
	}
	c.ok("token", "revoke", toks[0].ID)
	if err := json.Unmarshal([]byte(c.ok("token", "list", "--desk", "eng", "--format", "json")), &toks); err != nil || len(toks) != 1 || toks[0].Revoked == nil {
		t.Errorf("token list --desk eng --format json after a revocation: %+v, %v", toks, err)
	}
	for _, args := range [][]string{{"desks", "--format", "yaml"}, {"token", "list", "--format", "openai"}} {
		if r := c.want(exitUsage, args...); !strings.Contains(r.stderr, "want text or json") {
			t.Errorf("%v:\n%s", args, r)
		}
	}
}

// TestHelpNamesImportFormats: the command list names every format import reads.
func TestHelpNamesImportFormats(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	out := c.ok("help")
	for _, format := range []string{"JSON Lines", "Slack", "Discord"} {
		if !strings.Contains(out, format) {
			t.Errorf("help does not name %s:\n%s", format, out)
		}
	}
}

// tokenJSON is one token as token list --format json writes it (token.Token.MarshalJSON).
type tokenJSON struct {
	ID          string            `json:"id"`
	Desk        string            `json:"desk"`
	Participant transcript.Author `json:"participant"`
	Created     time.Time         `json:"created"`
	Revoked     *time.Time        `json:"revoked"`
}
