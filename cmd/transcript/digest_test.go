package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
)

// digestAsideWord is the word only the operator's aside to Triage in digestDesk holds.
const digestAsideWord = "zanzibar"

// digestDesk returns JSON Lines of a desk whose channel is due a fold: 60 roots by Ana and
// Bo in turn, the operator's aside to Triage at #10 among them (the only row holding
// digestAsideWord), and a thread under #2 (#62, #63).
func digestDesk() string {
	var b strings.Builder
	for i := 1; i <= 61; i++ {
		switch {
		case i == 10:
			fmt.Fprintf(&b, `{"id":"m%d","author":{"type":"operator"},"content":"Triage, keep the %s plan to yourself.","audience":[{"type":"agent","id":"triage","label":"Triage"}]}`+"\n", i, digestAsideWord)
		case i%2 == 0:
			fmt.Fprintf(&b, `{"id":"m%d","author":{"type":"person","id":"ana","label":"Ana"},"content":"note %d from Ana"}`+"\n", i, i)
		default:
			fmt.Fprintf(&b, `{"id":"m%d","author":{"type":"agent","id":"bo","label":"Bo"},"content":"note %d from Bo"}`+"\n", i, i)
		}
	}
	b.WriteString(`{"id":"r1","author":{"type":"agent","id":"bo","label":"Bo"},"content":"a reply","parent":"m2"}` + "\n")
	b.WriteString(`{"id":"r2","author":{"type":"person","id":"ana","label":"Ana"},"content":"a reply to it","parent":"r1"}` + "\n")
	return b.String()
}

// newDigestCLI returns a cli on a new database of backend newDB that holds digestDesk as
// desk eng.
func newDigestCLI(t *testing.T, newDB func(t *testing.T) string) *cli {
	t.Helper()
	c := newCLI(t, newDB(t))
	c.ok("import", "--desk", "eng", c.writeFile("eng.jsonl", []byte(digestDesk())))
	return c
}

// TestDigestCommand: digest folds the channel's rows every participant reads, all but the
// newest 30, and prints the block view --digest begins with; run again it folds nothing and
// prints the same digest; view --digest shows it in every format, and without --digest no
// format does; no output holds the aside's word.
func TestDigestCommand(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newDigestCLI(t, newDB)
		r := c.want(exitOK, "digest", "--desk", "eng")
		// 60 of the 61 roots qualify (#10 is an aside) and #62, #2's first reply: the newest 30
		// stay, and #1 to #32 but #10 fold.
		head := "Digest of the channel through #32 · 31 messages · extractive\n    #1 Ana (person:ana): note 1 from Ana\n"
		if !strings.HasPrefix(r.stdout, strings.Replace(head, "Ana (person:ana): note 1 from Ana", "Bo (agent:bo): note 1 from Bo", 1)) {
			t.Errorf("digest printed:\n%s", r)
		}
		if want := "folded the channel once: generation 1\n"; r.stderr != want {
			t.Errorf("digest said %q on standard error, want %q", r.stderr, want)
		}
		if !strings.Contains(r.stdout, "    #32 Ana (person:ana): note 32 from Ana\n") || strings.Contains(r.stdout, "#33 ") || strings.Contains(r.stdout, "#10 ") {
			t.Errorf("the digest does not stand for #1 to #32 but the aside #10:\n%s", r.stdout)
		}
		again := c.want(exitOK, "digest", "--desk", "eng")
		if again.stdout != r.stdout || again.stderr != "nothing new to fold in the channel: its digest stays at generation 1\n" {
			t.Errorf("digest run again:\n%s\nwant the same digest and nothing folded", again)
		}

		view := c.ok("view", "--desk", "eng", "--digest", "--window", "5")
		if !strings.HasPrefix(view, r.stdout) || !strings.Contains(view[len(r.stdout)-1:], "\n#58 ") {
			t.Errorf("view --digest does not begin with the block digest prints, then the window:\n%s", view)
		}
		for _, format := range []string{"openai", "anthropic"} {
			out := c.ok("view", "--desk", "eng", "--digest", "--window", "5", "--format", format)
			var turns []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			}
			if err := json.Unmarshal([]byte(out), &turns); err != nil || len(turns) == 0 || turns[0].Role != "user" ||
				!strings.Contains(string(turns[0].Content), `\u003cdigest of=\"channel\" through=\"32\" rows=\"31\" digester=\"extractive\"\u003e`) && !strings.Contains(string(turns[0].Content), `<digest of=\"channel\" through=\"32\" rows=\"31\" digester=\"extractive\">`) {
				t.Errorf("view --digest --format %s does not begin with a user turn holding the digest's tag (%v):\n%s", format, err, out)
			}
			if plain := c.ok("view", "--desk", "eng", "--window", "5", "--format", format); strings.Contains(plain, "digest") {
				t.Errorf("view --format %s without --digest holds a digest:\n%s", format, plain)
			}
		}
		var p transcript.Projection
		if err := json.Unmarshal([]byte(c.ok("view", "--desk", "eng", "--digest", "--window", "5", "--format", "json")), &p); err != nil || p.Digest == nil ||
			p.Digest.Through != 32 || p.Digest.Rows != 31 || p.Digest.Generation != 1 || p.Digest.Digester != "extractive" || len(p.Messages) != 5 {
			t.Errorf("view --digest --format json: %+v, %v; want the digest through #32 of 31 rows and 5 messages", p.Digest, err)
		}
		var d transcript.Digest
		if err := json.Unmarshal([]byte(c.ok("digest", "--desk", "eng", "--format", "json")), &d); err != nil || *p.Digest != d {
			t.Errorf("digest --format json = %+v (%v), want view's %+v", d, err, p.Digest)
		}
		if plain := c.ok("view", "--desk", "eng", "--window", "5"); strings.Contains(plain, "Digest of") {
			t.Errorf("view without --digest shows the digest:\n%s", plain)
		}
		if got := c.ok("view", "--desk", "eng", "--digest", "--window", "40"); strings.Contains(got, "Digest of") {
			t.Errorf("view --digest of a window reaching below the digest's #32 shows it:\n%s", got)
		}

		// A start-over's full view carries the digest with --digest; a delta never does.
		state := c.path("state.json")
		if got := c.ok("delta", "--desk", "eng", "--state", state, "--init", "--digest"); !strings.HasPrefix(got, r.stdout) {
			t.Errorf("delta --init --digest does not begin with the digest:\n%s", got)
		}
		if got := c.ok("delta", "--desk", "eng", "--state", state, "--init"); strings.Contains(got, "Digest of") {
			t.Errorf("delta --init without --digest shows the digest:\n%s", got)
		}
		if r := c.want(exitUsage, "delta", "--desk", "eng", "--state", state, "--digest"); !strings.Contains(r.stderr, "--digest needs --init") {
			t.Errorf("delta --digest without --init:\n%s", r)
		}

		// A thread with too few replies has no digest yet: JSON null, and a note saying why.
		th := c.want(exitOK, "digest", "--desk", "eng", "--thread", "2", "--format", "json")
		if th.stdout != "null\n" || !strings.HasPrefix(th.stderr, "no digest of thread #2 yet: ") {
			t.Errorf("digest of a short thread:\n%s", th)
		}
		for _, out := range []string{r.stdout, view, c.ok("view", "--desk", "eng", "--as", "agent:triage", "--digest", "--format", "json")} {
			if strings.Contains(out, "#10 (operator)") {
				t.Errorf("a digest holds the aside #10:\n%s", out)
			}
		}
	})
}

// TestDeltaDigestCorrected: delta --init --digest --commit saves a state that records the
// digest it showed, and once a message that digest stands for is redacted the next delta
// is a reinitialization for digest_corrected (exit 3), the state file left as it was.
func TestDeltaDigestCorrected(t *testing.T) {
	c := newDigestCLI(t, backends()[0].db)
	c.ok("digest", "--desk", "eng")
	state := c.path("state.json")
	c.ok("delta", "--desk", "eng", "--state", state, "--init", "--digest", "--commit")
	saved, err := os.ReadFile(state)
	var held struct {
		Digest transcript.Sequence `json:"digest"`
	}
	if err != nil || json.Unmarshal(saved, &held) != nil || held.Digest != 32 {
		t.Fatalf("the state saved with the digest through #32: %s, %v", saved, err)
	}
	c.ok("redact", "--desk", "eng", "2")
	r := c.want(exitReinit, "delta", "--desk", "eng", "--state", state, "--commit")
	if !strings.Contains(r.stderr, "digest_corrected") || !strings.Contains(r.stderr, "--init --digest --commit") {
		t.Errorf("the delta after a redaction of a folded message: want digest_corrected and how to start over, got:\n%s", r)
	}
	if after, _ := os.ReadFile(state); string(after) != string(saved) {
		t.Errorf("the reinitialization changed the state file to:\n%s\nwas:\n%s", after, saved)
	}
}

// fakeOpenAI is a local server that speaks Chat Completions: it records each request's
// body and Authorization header and answers with answer, or with status when it is not 200.
type fakeOpenAI struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   []string
	auth     []string
	status   int
	answered string
}

func newFakeOpenAI(t *testing.T, status int, answer string) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{status: status, answered: answer}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, string(body))
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if f.status != http.StatusOK {
			w.WriteHeader(f.status)
			fmt.Fprintf(w, `{"error":{"message":"bad key %s","type":"invalid_request_error"}}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
			return
		}
		answer, _ := json.Marshal(f.answered)
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%s}}]}`, answer)
	}))
	t.Cleanup(f.Close)
	return f
}

// TestDigestOpenAI: digest --digester openai sends the rows it folds to the endpoint, each
// in its envelope naming its author, never the aside, with the key from OPENAI_API_KEY as
// the bearer token and nowhere else, and prints the model's answer as the digest. An
// endpoint's refusal is an error naming its status that says the digest stays, without the
// key; nothing is stored.
func TestDigestOpenAI(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newDigestCLI(t, newDB)
		const key = "sk-test-secret-key"
		env := []string{"OPENAI_API_KEY=" + key}

		down := newFakeOpenAI(t, http.StatusUnauthorized, "")
		r := c.runWithEnv(env, "digest", "--db", c.db, "--desk", "eng", "--digester", "openai", "--model", "m", "--base-url", down.URL)
		if want := "transcript: fold the channel of desk \"eng\": digester openai:m: the endpoint answered 401 Unauthorized; the digest stays as it was\n"; r.code != exitError || r.stderr != want || r.stdout != "" {
			t.Errorf("digest against an endpoint that answers 401: want exit 1 and %q, got:\n%s", want, r)
		}
		if strings.Contains(r.stderr+r.stdout, key) {
			t.Errorf("the output holds the key:\n%s", r)
		}
		if got := c.ok("view", "--desk", "eng", "--digest", "--format", "json"); strings.Contains(got, `"digest"`) {
			t.Errorf("a failed fold stored a digest:\n%s", got)
		}

		long := newFakeOpenAI(t, http.StatusOK, strings.Repeat("word ", 900))
		r = c.runWithEnv(env, "digest", "--db", c.db, "--desk", "eng", "--digester", "openai", "--model", "m", "--base-url", long.URL)
		if want := "transcript: fold the channel of desk \"eng\": digester openai:m: its text is refused, not cut: 4499 characters, over the budget of 4000; the digest stays as it was\n"; r.code != exitError || r.stderr != want || r.stdout != "" {
			t.Errorf("digest against an endpoint that answers text over the budget: want exit 1 and %q, got:\n%s", want, r)
		}

		up := newFakeOpenAI(t, http.StatusOK, "Ana and Bo (agent:bo) traded notes 1 to 32.")
		r = c.runWithEnv(env, "digest", "--db", c.db, "--desk", "eng", "--digester", "openai", "--model", "m", "--base-url", up.URL+"/v1")
		if want := "Digest of the channel through #32 · 31 messages · openai:m\n    Ana and Bo (agent:bo) traded notes 1 to 32.\n"; r.code != exitOK || r.stdout != want {
			t.Errorf("digest --digester openai: want exit 0 and\n%s\ngot:\n%s", want, r)
		}
		if len(up.bodies) != 1 || up.auth[0] != "Bearer "+key {
			t.Fatalf("the endpoint got %d requests, authorized %q; want one with the key", len(up.bodies), up.auth)
		}
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal([]byte(up.bodies[0]), &req); err != nil || req.Model != "m" || len(req.Messages) != 2 {
			t.Fatalf("the request is not a Chat Completions request for model m (%v):\n%s", err, up.bodies[0])
		}
		input := req.Messages[1].Content
		for i := 1; i <= 32; i++ {
			if i == 10 {
				continue
			}
			author := `kind="agent" id="bo" label="Bo">` + "\n" + fmt.Sprintf("note %d from Bo", i)
			if i%2 == 0 {
				author = `kind="person" id="ana" label="Ana">` + "\n" + fmt.Sprintf("note %d from Ana", i)
			}
			if want := fmt.Sprintf(`<message seq="%d" %s`, i, author); !strings.Contains(input, want) {
				t.Errorf("the request does not hold row #%d with its author, %q:\n%s", i, want, input)
			}
		}
		if strings.Contains(up.bodies[0], digestAsideWord) || strings.Contains(input, `seq="33"`) {
			t.Errorf("the request holds the aside or a row the views keep:\n%s", input)
		}
	})
}

// TestDigestTimeoutFlag: digest --digester openai against an endpoint that never answers
// gives up after --digest-timeout, says so, and stores nothing.
func TestDigestTimeoutFlag(t *testing.T) {
	t.Parallel()
	c := newDigestCLI(t, func(t *testing.T) string { return "desk.db" })
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // read whole, the request's end is heard: its context ends
		<-r.Context().Done()
	}))
	t.Cleanup(hung.Close)
	r := c.runWithEnv([]string{"OPENAI_API_KEY=k"}, "digest", "--db", "desk.db", "--desk", "eng", "--digester", "openai", "--model", "m", "--base-url", hung.URL, "--digest-timeout", "200ms")
	if want := "transcript: fold the channel of desk \"eng\": digester openai:m: no answer within 200ms (--digest-timeout); the digest stays as it was\n"; r.code != exitError || r.stderr != want || r.stdout != "" {
		t.Errorf("digest against an endpoint that never answers: want exit 1 and %q, got:\n%s", want, r)
	}
	if got := c.ok("view", "--desk", "eng", "--digest", "--format", "json"); strings.Contains(got, `"digest"`) {
		t.Errorf("a fold that timed out stored a digest:\n%s", got)
	}
}

// TestDigestErrors: what digest refuses, in the command's words, with exit 2 for a command
// line that cannot run and 1 for a desk or thread the database does not hold as asked;
// nothing is written to standard output.
func TestDigestErrors(t *testing.T) {
	t.Parallel()
	c := newDigestCLI(t, func(t *testing.T) string { return "desk.db" })
	for _, tc := range []struct {
		name   string
		env    []string
		args   []string
		code   int
		stderr string
	}{
		{"a bad digester", nil, []string{"--digester", "gpt"}, exitUsage,
			"transcript: usage: --digester \"gpt\": want extractive or openai\n"},
		{"a missing key", []string{"OPENAI_API_KEY="}, []string{"--digester", "openai", "--model", "m"}, exitUsage,
			"transcript: usage: --digester openai needs the endpoint's key in OPENAI_API_KEY (for a local server that takes none, any value)\n"},
		{"no model", []string{"OPENAI_API_KEY=k"}, []string{"--digester", "openai"}, exitUsage,
			"transcript: usage: --digester openai needs --model: the model's name, such as gpt-4o-mini\n"},
		{"a bad base URL", []string{"OPENAI_API_KEY=k"}, []string{"--digester", "openai", "--model", "m", "--base-url", "localhost:11434"}, exitUsage,
			"transcript: usage: --base-url: want an absolute http or https URL, such as http://localhost:11434/v1 (the value is not repeated here: it may hold a key)\n"},
		{"a key over plain http", []string{"OPENAI_API_KEY=sk-cmd-KEY"}, []string{"--digester", "openai", "--model", "m", "--base-url", "http://example.test:8080/v1?api-key=sk-cmd-KEY"}, exitUsage,
			"transcript: usage: --base-url http://example.test:8080 is plain http to a host that is not loopback: the key in OPENAI_API_KEY would cross the network in clear; use https, or http to localhost, 127.0.0.1 or [::1]\n"},
		{"a key over plain http from OPENAI_BASE_URL", []string{"OPENAI_API_KEY=sk-cmd-KEY", "OPENAI_BASE_URL=http://10.1.2.3/v1"}, []string{"--digester", "openai", "--model", "m"}, exitUsage,
			"transcript: usage: OPENAI_BASE_URL http://10.1.2.3 is plain http to a host that is not loopback: the key in OPENAI_API_KEY would cross the network in clear; use https, or http to localhost, 127.0.0.1 or [::1]\n"},
		{"a timeout of 0", nil, []string{"--digest-timeout", "0s"}, exitUsage,
			"transcript: usage: --digest-timeout 0s: want a duration above 0, such as 60s or 5m\n"},
		{"a negative timeout", []string{"OPENAI_API_KEY=k"}, []string{"--digester", "openai", "--model", "m", "--digest-timeout", "-1m"}, exitUsage,
			"transcript: usage: --digest-timeout -1m0s: want a duration above 0, such as 60s or 5m\n"},
		{"a model for extractive", nil, []string{"--model", "m"}, exitUsage,
			"transcript: usage: --model and --base-url are for --digester openai\n"},
		{"a missing desk", nil, []string{"--desk", "ops"}, exitError,
			"transcript: no desk \"ops\"; the desks are: eng\n"},
		{"a missing thread", nil, []string{"--thread", "99"}, exitError,
			"transcript: no thread #99: desk \"eng\" holds rows #1 to #63\n"},
		{"a thread that is not a root", nil, []string{"--thread", "62"}, exitError,
			"transcript: fold thread #62 of desk \"eng\": row #62 is not a thread's root: a digest is of the channel or of a root's thread\n"},
	} {
		args := append([]string{"digest", "--db", "desk.db", "--desk", "eng"}, tc.args...)
		r := c.runWithEnv(tc.env, args...)
		if r.code != tc.code || r.stderr != tc.stderr || r.stdout != "" {
			t.Errorf("%s: want exit %d and %q, got:\n%s", tc.name, tc.code, tc.stderr, r)
		}
		checkNoPackageName(t, r)
	}
	if r := c.runWithEnv(nil, "digest", "--db", "missing.db", "--desk", "eng"); r.code != exitError || !strings.Contains(r.stderr, "no database at missing.db") {
		t.Errorf("digest of a missing database:\n%s", r)
	}
}
