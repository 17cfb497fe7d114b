package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/demodesk"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

// secretLine is all token add writes to standard output: the secret and a newline.
var secretLine = regexp.MustCompile(`^trs_[A-Za-z0-9_-]{43}\n$`)

// addTokenInProcess runs token add for participant on desk and returns the secret.
func addTokenInProcess(t *testing.T, db, desk, participant string) string {
	t.Helper()
	code, stdout, stderr := runInProcess("", "token", "add", "--db", db, "--desk", desk, "--create", "--as", participant)
	if code != exitOK {
		t.Fatalf("token add --as %s: exit %d\n%s", participant, code, stderr)
	}
	if !secretLine.MatchString(stdout) {
		t.Fatalf("token add wrote %q to standard output, want the secret alone on a line", stdout)
	}
	secret := strings.TrimSuffix(stdout, "\n")
	if strings.Contains(stderr, secret) || !strings.Contains(stderr, token.IDOf(token.Hash(secret))) {
		t.Fatalf("token add's standard error should name the token's ID and never its secret:\n%s", stderr)
	}
	return secret
}

// TestServe runs serve against each store: tokens made before and while it runs, appends,
// a view, a delta, a live stream, the public routes, a revocation that takes effect at
// once, a row another process appends reaching the stream, and a drain with a stream open
// that exits 0.
func TestServe(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) { checkServe(t, newDB(t)) })
}

// checkServe is TestServe's check on db, serve run with flags besides --db. It returns
// what serve wrote to standard error.
func checkServe(t *testing.T, db string, flags ...string) string {
	t.Helper()
	triageSecret := addTokenInProcess(t, db, "eng", "agent:triage:Triage")
	anaSecret := addTokenInProcess(t, db, "eng", "person:ana:Ana")
	srv := startServe(t, db, append([]string{"--log-format", "json"}, flags...)...)
	public, triage, ana := srv.api(""), srv.api(triageSecret), srv.api(anaSecret)

	public.want(http.StatusOK, "GET", "/healthz", nil, nil)
	var doc struct {
		OpenAPI string `json:"openapi"`
	}
	public.want(http.StatusOK, "GET", "/openapi.json", nil, &doc)
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("GET /openapi.json: openapi %q, want 3.1.0", doc.OpenAPI)
	}
	public.want(http.StatusUnauthorized, "GET", "/v1/desks", nil, nil)

	// A stream from the start of the desk, open before anything is appended.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream := triage.send(ctx, "GET", "/v1/desks/eng/events?after=0", nil)
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK || !strings.HasPrefix(stream.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET events: %d %s", stream.StatusCode, stream.Header.Get("Content-Type"))
	}

	var m transcript.Message
	ana.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "Deploy #41 is red"}, &m)
	if m.Seq != 1 || m.Author != transcript.Person("ana", "Ana") {
		t.Errorf("ana's append: %+v, want seq 1 by person:ana with the token's label", m)
	}
	triage.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "Looking.", "parent": 1}, nil)
	ana.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "Split it in two?"}, nil)
	ana.want(http.StatusBadRequest, "POST", "/v1/desks/eng/messages", map[string]any{"content": "as someone else", "author": map[string]any{"type": "operator"}}, nil)

	events := newSSEReader(stream.Body)
	wantEvents(t, events, "never triage's own #2", event{"1", "Deploy #41 is red"}, event{"3", "Split it in two?"})

	var view transcript.Projection
	triage.want(http.StatusOK, "GET", "/v1/desks/eng/view", nil, &view)
	if view.Head != 3 || len(view.Messages) != 3 {
		t.Errorf("view: head %d, %d messages; want head 3 and 3 messages", view.Head, len(view.Messages))
	}
	var delta struct {
		Delta sharing.Delta `json:"delta"`
	}
	state := sharing.Initialized(transcript.Conversation{Desk: "eng"}, 1)
	if err := state.NotePresent(2); err != nil {
		t.Fatal(err)
	}
	triage.want(http.StatusOK, "POST", "/v1/desks/eng/delta", map[string]any{"state": state}, &delta)
	if len(delta.Delta.Messages) != 1 || delta.Delta.Messages[0].Seq != 3 || delta.Delta.Next.Watermark != 3 {
		t.Errorf("delta from watermark 1 with #2 present: %+v, want #3 alone and watermark 3", delta.Delta)
	}
	triage.want(http.StatusNotFound, "GET", "/v1/desks/other/view", nil, nil)

	// A token made while serve runs works at once; revoked, it is refused at once.
	boSecret := addTokenInProcess(t, db, "eng", "person:bo:Bo")
	bo := srv.api(boSecret)
	bo.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "I can take it."}, nil)
	if code, _, stderr := runInProcess("", "token", "revoke", "--db", db, token.IDOf(token.Hash(boSecret))); code != exitOK {
		t.Fatalf("token revoke: exit %d\n%s", code, stderr)
	}
	bo.want(http.StatusUnauthorized, "GET", "/v1/desks", nil, nil)

	// A row another process appends reaches the stream: through PostgreSQL's
	// notifications, or SQLite's data version.
	if code, _, stderr := runInProcess("", "append", "--db", db, "--desk", "eng", "From the command line."); code != exitOK {
		t.Fatalf("append while serve runs: exit %d\n%s", code, stderr)
	}
	wantEvents(t, events, "bo's, then the command line's", event{"4", "I can take it."}, event{"5", "From the command line."})

	// The drain ends the open stream and exits 0.
	if code := srv.stop(); code != exitOK {
		t.Fatalf("serve after its signal: exit %d, want 0:\n%s", code, srv.stderr)
	}
	if _, err := io.Copy(io.Discard, stream.Body); err != nil {
		t.Logf("the stream ended with %v", err) // a cut connection is an end too
	}
	logs := srv.stderr.String()
	if !strings.Contains(logs, "stopped") {
		t.Errorf("serve's standard error does not say it stopped:\n%s", logs)
	}
	for _, secret := range []string{triageSecret, anaSecret, boSecret} {
		if strings.Contains(logs, secret) {
			t.Errorf("serve's log holds a secret:\n%s", logs)
		}
	}
	requests := 0
	for line := range strings.Lines(logs) {
		var rec struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "request" {
			requests++
		}
	}
	if requests < 10 {
		t.Errorf("--log-format json: %d JSON request lines, want one a request:\n%s", requests, logs)
	}

	// The database is closed and whole: export reads every row.
	code, stdout, stderr := runInProcess("", "export", "--db", db, "--desk", "eng")
	if code != exitOK || strings.Count(stdout, "\n") != 5 {
		t.Errorf("export after serve: exit %d, %d rows, want 5:\n%s%s", code, strings.Count(stdout, "\n"), stdout, stderr)
	}
	return logs
}

// event is a message event a stream should send: its id and its message's content.
type event struct{ id, content string }

// wantEvents reads the next events of a stream and checks they are want, in order.
func wantEvents(t *testing.T, events *sseReader, why string, want ...event) {
	t.Helper()
	for _, w := range want {
		ev, ok := events.next()
		if !ok {
			t.Fatalf("the stream ended before event %s", w.id)
		}
		var got transcript.Message
		if err := json.Unmarshal([]byte(ev.data), &got); err != nil {
			t.Fatalf("event %+v: %v", ev, err)
		}
		if ev.name != "message" || ev.id != w.id || got.Content != w.content {
			t.Errorf("event %+v, want message %s %q (%s)", ev, w.id, w.content, why)
		}
	}
}

// TestServeLimitFlags: --rate, --burst and --max-streams reach the server.
func TestServeLimitFlags(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	secret := addTokenInProcess(t, db, "eng", "agent:triage")
	srv := startServe(t, db, "--rate", "0.001", "--burst", "3", "--max-streams", "1")
	a := srv.api(secret)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := a.send(ctx, "GET", "/v1/desks/eng/events", nil) // request 1
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("first stream: %d", stream.StatusCode)
	}
	code, body := a.do("GET", "/v1/desks/eng/events", nil) // request 2: one stream too many
	if code != http.StatusTooManyRequests || !strings.Contains(string(body), "too-many-streams") {
		t.Errorf("second stream with --max-streams 1: %d %s, want 429 too-many-streams", code, body)
	}
	a.want(http.StatusOK, "GET", "/v1/desks", nil, nil) // request 3: the last of the burst
	resp := a.send(context.Background(), "GET", "/v1/desks", nil)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), "rate-limited") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a fourth request with --burst 3: %d %s (Retry-After %q), want 429 rate-limited with Retry-After", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	cancel()
	if code := srv.stop(); code != exitOK {
		t.Errorf("exit %d:\n%s", code, srv.stderr)
	}
}

// TestServeMaxAnswerBytes: --max-answer-bytes reaches the server: a view whose messages
// exceed it drops its oldest ones and says how many.
func TestServeMaxAnswerBytes(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	secret := addTokenInProcess(t, db, "eng", "agent:triage")
	srv := startServe(t, db, "--max-answer-bytes", "10")
	a := srv.api(secret)
	for _, c := range []string{"first", "second", "third"} {
		a.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": c}, nil)
	}
	var p struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		Dropped int `json:"dropped"`
	}
	a.want(http.StatusOK, "GET", "/v1/desks/eng/view", nil, &p)
	if len(p.Messages) != 1 || p.Messages[0].Content != "third" || p.Dropped != 2 {
		t.Errorf("a view under --max-answer-bytes 10: %+v, want third alone, dropped 2", p)
	}
	if code := srv.stop(); code != exitOK {
		t.Errorf("exit %d:\n%s", code, srv.stderr)
	}
}

// TestServeMaxTotalStreams: --max-total-streams caps the streams of all tokens together:
// one more is 503 streams-full with Retry-After.
func TestServeMaxTotalStreams(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	first := addTokenInProcess(t, db, "eng", "agent:triage")
	second := addTokenInProcess(t, db, "eng", "agent:coder")
	srv := startServe(t, db, "--max-total-streams", "1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := srv.api(first).send(ctx, "GET", "/v1/desks/eng/events", nil)
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("first stream: %d", stream.StatusCode)
	}
	resp := srv.api(second).send(context.Background(), "GET", "/v1/desks/eng/events", nil)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "streams-full") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("another token's stream with --max-total-streams 1: %d %s (Retry-After %q), want 503 streams-full with Retry-After",
			resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	cancel()
	if code := srv.stop(); code != exitOK {
		t.Errorf("exit %d:\n%s", code, srv.stderr)
	}
}

// TestServeTLS: with --tls-cert and --tls-key serve speaks HTTPS, with the certificate
// given.
func TestServeTLS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "desk.db")
	certFile, keyFile, pool := selfSignedCert(t, dir)
	secret := addTokenInProcess(t, db, "eng", "agent:triage")
	srv := startServe(t, db, "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(srv.url, "https://127.0.0.1:") {
		t.Fatalf("listening line names %s, want https://127.0.0.1:PORT", srv.url)
	}
	a := srv.api(secret)
	a.client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	a.want(http.StatusOK, "GET", "/healthz", nil, nil)
	var m transcript.Message
	a.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "over TLS"}, &m)
	if m.Seq != 1 {
		t.Errorf("append over TLS: %+v", m)
	}
	plain := srv.api(secret)
	plain.base = "http://" + strings.TrimPrefix(srv.url, "https://")
	if code, _ := plain.do("GET", "/healthz", nil); code != http.StatusBadRequest {
		t.Errorf("plain HTTP to the TLS port: %d, want 400", code)
	}
	if code := srv.stop(); code != exitOK {
		t.Errorf("exit %d:\n%s", code, srv.stderr)
	}
}

// selfSignedCert writes a self-signed certificate for 127.0.0.1 and its key to dir, and
// returns their files and a pool that trusts the certificate.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "transcript test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// TestServeRefusals: an address beyond loopback without TLS or --insecure-http, and every
// other flag serve cannot run with, is a usage error (exit 2) before anything is opened;
// a certificate that cannot be loaded is an error (exit 1). Neither listens or leaves a
// database behind.
func TestServeRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--addr", "0.0.0.0:0"}, exitUsage, "--insecure-http"},
		{[]string{"--addr", ":0"}, exitUsage, "needs TLS"},
		{[]string{"--addr", "[::]:0"}, exitUsage, "needs TLS"},
		{[]string{"--addr", "192.0.2.1:8474"}, exitUsage, "--tls-cert and --tls-key"},
		{[]string{"--addr", "desk.example:8474"}, exitUsage, "needs TLS"},
		{[]string{"--addr", "127.0.0.1"}, exitUsage, "missing port"},
		{[]string{"--tls-cert", "cert.pem"}, exitUsage, "go together"},
		{[]string{"--tls-key", "key.pem"}, exitUsage, "go together"},
		{[]string{"--tls-cert", "cert.pem", "--tls-key", "key.pem", "--insecure-http"}, exitUsage, "choose one"},
		{[]string{"--rate", "0"}, exitUsage, "--rate"},
		{[]string{"--rate", "-1"}, exitUsage, "--rate"},
		{[]string{"--rate", "NaN"}, exitUsage, "--rate"},
		{[]string{"--burst", "0"}, exitUsage, "--burst"},
		{[]string{"--max-streams", "0"}, exitUsage, "--max-streams"},
		{[]string{"--max-total-streams", "-1"}, exitUsage, "--max-total-streams"},
		{[]string{"--max-answer-bytes", "0"}, exitUsage, "--max-answer-bytes"},
		{[]string{"--drain-timeout", "0s"}, exitUsage, "--drain-timeout"},
		{[]string{"--log-format", "xml"}, exitUsage, `--log-format "xml"`},
		{[]string{"--digester", "gpt"}, exitUsage, `--digester "gpt"`},
		{[]string{"--digester", "openai"}, exitUsage, "needs --model"},
		{[]string{"--model", "m"}, exitUsage, "are for --digester openai"},
		{[]string{"--digester", "none", "--base-url", "http://127.0.0.1:1/v1"}, exitUsage, "are for --digester openai"},
		{[]string{"--digest-timeout", "0s"}, exitUsage, "--digest-timeout 0s: want a duration above 0"},
		{[]string{"--digester", "none", "--digest-timeout", "-1s"}, exitUsage, "--digest-timeout -1s: want a duration above 0"},
		{[]string{"extra"}, exitUsage, "serve takes no arguments"},
		{[]string{"--tls-cert", "missing.pem", "--tls-key", "missing.key"}, exitError, "missing.pem"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, "")
			r := c.run(append([]string{"serve"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("want exit %d and %q on standard error, got:\n%s", tc.code, tc.stderr, r)
			}
			if strings.Contains(r.stderr, "listening") || r.stdout != "" {
				t.Errorf("a refused serve listened or wrote to standard output:\n%s", r)
			}
			if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
				t.Errorf("a refused serve left files: %v", entries)
			}
		})
	}
}

// TestServeSIGTERM runs the built command, as an operator or a service manager would, and
// stops it with SIGTERM while a stream is open: it drains and exits 0.
func TestServeSIGTERM(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	c := newCLI(t, "")
	db := c.path("desk.db")
	secret := strings.TrimSpace(c.ok("token", "add", "--db", db, "--desk", "eng", "--create", "--as", "agent:triage"))
	cmd := exec.Command(binary(t), "serve", "--db", db, "--addr", "127.0.0.1:0")
	cmd.Dir = c.dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	var url string
	for url == "" && lines.Scan() {
		if m := listeningLine.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatal("serve ended before its listening line")
	}
	rest := make(chan string)
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		rest <- b.String()
	}()
	a := api{t: t, base: url, secret: secret, client: http.DefaultClient}
	a.want(http.StatusOK, "GET", "/v1/desks", nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stream := a.send(ctx, "GET", "/v1/desks/eng/events", nil)
	defer stream.Body.Close()

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, stream.Body) // the drain ends the stream
	logs := <-rest
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v, want exit 0:\n%s", err, logs)
	}
	if !strings.Contains(logs, "terminated signal received: draining") || !strings.Contains(logs, "stopped") {
		t.Errorf("serve's standard error after SIGTERM:\n%s", logs)
	}
}

// TestServeDrainTimeout: a request that does not finish within --drain-timeout (here a
// view whose client stops reading it) is cut, and serve exits 1 saying so.
func TestServeDrainTimeout(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	secret := addTokenInProcess(t, db, "eng", "agent:triage")
	// A desk whose view is more than the loopback socket's buffers hold: 2048 rows of 8 KiB.
	st, err := dbflag.Flags{DB: db}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]transcript.Message, 2048)
	for i := range rows {
		rows[i] = transcript.Message{Author: transcript.Person("ana", ""), Content: strings.Repeat("x", 8<<10)}
	}
	if err := st.AppendBatch(context.Background(), "eng", rows); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, db, "--drain-timeout", "200ms")
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// A small receive buffer, that the kernel does not grow: the server's writes block soon.
	if err := conn.(*net.TCPConn).SetReadBuffer(4 << 10); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, "GET /v1/desks/eng/view?window=2048 HTTP/1.1\r\nHost: transcript\r\nAuthorization: Bearer "+secret+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	status := make([]byte, len("HTTP/1.1 200"))
	if _, err := io.ReadFull(conn, status); err != nil || string(status) != "HTTP/1.1 200" {
		t.Fatalf("the view's status line: %q, %v", status, err)
	}
	// The handler is writing the rest, and blocks: nothing reads it.
	if code := srv.stop(); code != exitError {
		t.Fatalf("serve with a request held past --drain-timeout: exit %d, want 1:\n%s", code, srv.stderr)
	}
	if !strings.Contains(srv.stderr.String(), "did not finish within 200ms") {
		t.Errorf("serve does not say the drain was cut short:\n%s", srv.stderr)
	}
}

// TestServeDemo: serve --demo loads the demo desk, prints the inspector's address and an
// operator token that signs in to it; run again over the same database, it reuses the desk
// and prints a new token; and it deletes each token as it stops, so that none is listed.
func TestServeDemo(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	for run := range 2 {
		srv := startServe(t, db, "--demo")
		m := demoSignIn.FindStringSubmatch(srv.stdout.String())
		if m == nil || m[1] != srv.url {
			t.Fatalf("run %d: serve --demo printed %q, want the address %s and a token", run, srv.stdout, srv.url)
		}
		op := srv.api(m[2])
		var desks struct {
			Desks []struct {
				Name string            `json:"name"`
				Head uint64            `json:"head"`
				As   transcript.Author `json:"as"`
			} `json:"desks"`
		}
		op.want(http.StatusOK, "GET", "/v1/desks", nil, &desks)
		rows, _ := demodesk.Scenario()
		if len(desks.Desks) != 1 || desks.Desks[0].Name != demoDesk || desks.Desks[0].As.Kind != transcript.KindOperator || desks.Desks[0].Head != uint64(len(rows)) {
			t.Errorf("run %d: the token is for %+v, want the operator on desk %q of %d rows", run, desks, demoDesk, len(rows))
		}
		op.want(http.StatusCreated, "POST", "/v1/session", nil, nil)
		if code, body := srv.api("").do("GET", "/", nil); code != http.StatusOK || !strings.Contains(string(body), `id="sign-in"`) {
			t.Errorf("run %d: GET / is %d, want the sign-in page", run, code)
		}
		if code := srv.stop(); code != exitOK {
			t.Fatalf("run %d: serve exited %d:\n%s", run, code, srv.stderr)
		}
		if strings.Contains(srv.stderr.String(), m[2]) {
			t.Errorf("run %d: the token is on standard error, among the log lines", run)
		}
		if !strings.Contains(srv.stderr.String(), "deleted the demo's token") {
			t.Errorf("run %d: serve did not say it deleted the demo's token:\n%s", run, srv.stderr)
		}
	}
	// Every demo token was deleted when its serve stopped: token list shows none, live or
	// revoked.
	c := newCLI(t, "")
	if r := c.want(exitOK, "token", "list", "--db", db); r.stdout != "" || !strings.Contains(r.stderr, "no tokens") {
		t.Errorf("token list after two serve --demo runs:\n%s", r)
	}
	if out := c.ok("token", "list", "--db", db, "--format", "json"); out != "[]\n" {
		t.Errorf("token list --format json after two serve --demo runs = %q, want []", out)
	}
}

// TestServeSecureCookie: --secure-cookie reaches the server's options, and is off by default.
func TestServeSecureCookie(t *testing.T) {
	for _, tt := range []struct {
		f    serveFlags
		want bool
	}{{serveFlags{}, false}, {serveFlags{opts: server.Options{SecureCookie: true}}, true}} {
		if got := tt.f.options(slog.DiscardHandler).SecureCookie; got != tt.want {
			t.Errorf("options(%+v).SecureCookie = %v, want %v", tt.f, got, tt.want)
		}
	}
}

// TestServeThatCannotListenCreatesNoDatabase: serve on an address it cannot listen on (the
// port is taken) exits 1 having created no database, nor, with --demo, built the demo desk.
func TestServeThatCannotListenCreatesNoDatabase(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c := newCLI(t, "")
	for _, args := range [][]string{
		{"serve", "--db", "a.db", "--addr", ln.Addr().String()},
		{"serve", "--demo", "--db", "b.db", "--addr", ln.Addr().String()},
	} {
		r := c.want(exitError, args...)
		if db := args[len(args)-3]; fileExists(c.path(db)) || strings.Contains(r.stderr, "created") {
			t.Errorf("a serve that failed to listen created %s:\n%s", db, r)
		}
	}
}
