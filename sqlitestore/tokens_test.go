package sqlitestore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

var tokenTime = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// newToken makes a token for p on desk, created d after tokenTime.
func newToken(t *testing.T, desk string, p transcript.Author, d time.Duration) (string, token.Token) {
	t.Helper()
	secret, tok, err := token.New(desk, p, tokenTime.Add(d))
	if err != nil {
		t.Fatal(err)
	}
	return secret, tok
}

// TestMigrateFromV5 writes rows with the version 5 schema, which knew no tokens (an aside
// and a keyed row among them), then opens the file: Open migrates it, the desks read back
// as they were, their keys are found, no token exists, and tokens can be added, found and
// revoked, also for a desk that holds no row, which gets no desk row from its token.
func TestMigrateFromV5(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v5.db")
	db := openRaw(t, path)
	if found, err := migrate(ctx, db, 5); err != nil || found != 0 {
		t.Fatalf("migrate to version 5: found %d, %v", found, err)
	}
	want := writeOldDesk(t, db, time.Date(2026, 5, 20, 9, 0, 0, 321_000, time.UTC))
	before := dumpTables(t, db)
	db.Close()
	st := openMigrated(t, path, 5, before, want)
	if got, err := st.LookupKeys(ctx, "eng", []string{"slack:1.000001"}); err != nil || !cmp.Equal(got, map[string]transcript.Message{"slack:1.000001": want[0]}) {
		t.Errorf("LookupKeys after the migration: %v, %v", got, err)
	}
	if toks, err := st.Tokens(ctx); err != nil || len(toks) != 0 {
		t.Errorf("Tokens after the migration = %v, %v; want none", toks, err)
	}

	secret, tok := newToken(t, "eng", triageAgent, 0)
	_, fresh := newToken(t, "no-rows-yet", transcript.Person("ana", "Ana"), time.Second)
	for _, tk := range []token.Token{tok, fresh} {
		if err := st.AddToken(ctx, tk); err != nil {
			t.Fatalf("AddToken after the migration: %v", err)
		}
	}
	if got, err := token.Authenticate(ctx, st, "Bearer "+secret); err != nil || got != tok {
		t.Errorf("Authenticate after the migration = %+v, %v; want %+v", got, err, tok)
	}
	if err := st.RevokeToken(ctx, fresh.ID, tokenTime.Add(time.Hour)); err != nil {
		t.Errorf("RevokeToken after the migration: %v", err)
	}
	if desks, err := st.Desks(ctx); err != nil || !slices.Equal(desks, []string{"eng"}) {
		t.Errorf("Desks after adding tokens = %q, %v; want [eng]: a token makes no desk", desks, err)
	}
	if diff := cmp.Diff(want, readDesk(t, st, "eng")); diff != "" {
		t.Errorf("desk eng after adding tokens (-want +got):\n%s", diff)
	}
	m, err := st.Append(ctx, "eng", transcript.Message{Parent: 3, Author: tok.Participant, Content: "as the token's participant"})
	if err != nil || m.Seq != 4 {
		t.Errorf("Append after the migration: %+v, %v; want row 4", m, err)
	}
}

// TestTokenQueryPlans: a lookup by hash is a point SEARCH of the hash's UNIQUE index, and a
// revocation one of the primary key's; neither scans the table. A list reads the table,
// all of it by definition, and is only shown.
func TestTokenQueryPlans(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	var last token.Token
	for i := range 300 {
		_, last = newToken(t, []string{"eng", "sales", "ops"}[i%3], transcript.Agent("a"+strings.Repeat("x", i%7), "Agent"), time.Duration(i)*time.Second)
		if err := st.AddToken(ctx, last); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.writer.ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		name, query string
		args        []any
		uses        string // an index the plan must use; "" for none
	}{
		{"TokenByHash, in Authenticate", tokenByHashSQL, []any{last.Hash[:]}, "SEARCH tokens USING INDEX sqlite_autoindex_tokens_2 (hash=?)"},
		{"RevokeToken", revokeTokenSQL, []any{last.ID, int64(1)}, "SEARCH tokens USING INDEX sqlite_autoindex_tokens_1 (id=?)"},
		{"Tokens", listTokensSQL, nil, ""},
	} {
		steps := queryPlan(t, st, q.query, q.args...)
		t.Logf("%s:\n\t%s", q.name, strings.Join(steps, "\n\t"))
		if q.uses == "" {
			continue
		}
		used := false
		for _, step := range steps {
			if strings.HasPrefix(step, "SCAN tokens") {
				t.Errorf("%s: plan step %q scans the tokens table", q.name, step)
			}
			used = used || strings.Contains(step, q.uses)
		}
		if !used {
			t.Errorf("%s: plan does not use %s:\n\t%s", q.name, q.uses, strings.Join(steps, "\n\t"))
		}
	}
}

// TestTokenSchema: the table refuses, even from outside the package, a hash that is not 32
// bytes or not a BLOB, a hash or an id twice, an unknown kind and an empty desk.
func TestTokenSchema(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	_, tok := newToken(t, "eng", triageAgent, 0)
	if err := st.AddToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	insert := `INSERT INTO tokens (id, hash, desk, kind, ident, label, created_us) VALUES (?, ?, ?, ?, ?, ?, 0)`
	other := token.Hash("trs_other")
	for _, bad := range []struct {
		name string
		args []any
	}{
		{"a hash of 31 bytes", []any{"tok_1", other[:31], "eng", 3, "x", ""}},
		{"a hash of 33 bytes", []any{"tok_1", append(other[:], 0), "eng", 3, "x", ""}},
		{"a hash as text", []any{"tok_1", strings.Repeat("h", 32), "eng", 3, "x", ""}},
		{"no hash", []any{"tok_1", nil, "eng", 3, "x", ""}},
		{"the hash twice", []any{"tok_1", tok.Hash[:], "eng", 3, "x", ""}},
		{"the id twice", []any{tok.ID, other[:], "eng", 3, "x", ""}},
		{"no id", []any{nil, other[:], "eng", 3, "x", ""}},
		{"kind 0", []any{"tok_1", other[:], "eng", 0, "x", ""}},
		{"kind 5", []any{"tok_1", other[:], "eng", 5, "x", ""}},
		{"an empty desk", []any{"tok_1", other[:], "", 3, "x", ""}},
	} {
		if _, err := st.writer.ExecContext(ctx, insert, bad.args...); err == nil {
			t.Errorf("%s: the schema took it", bad.name)
		}
	}
	if toks, err := st.Tokens(ctx); err != nil || !cmp.Equal(toks, []token.Token{tok}) {
		t.Errorf("Tokens = %+v, %v; want only %+v", toks, err, tok)
	}
}

// TestSecretNotInFile: what the file holds of a token is its hash: no byte sequence of its
// secret, in the database, its WAL or its index, before or after a checkpoint.
func TestSecretNotInFile(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	st, err := Open(ctx, filepath.Join(dir, "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	var secrets []string
	for i, p := range []transcript.Author{opAuthor, triageAgent, anaPerson} {
		secret, tok := newToken(t, "eng", p, time.Duration(i))
		if err := st.AddToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, secret)
	}
	check := func(when string) {
		t.Helper()
		files, err := filepath.Glob(filepath.Join(dir, "desk.db*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("the store's files: %v, %v", files, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range secrets {
				text := strings.TrimPrefix(s, token.SecretPrefix)
				if bytes.Contains(data, []byte(text[:12])) || bytes.Contains(data, []byte(text[len(text)-12:])) {
					t.Errorf("%s: %s holds a piece of a secret", when, filepath.Base(f))
				}
			}
		}
	}
	check("before a checkpoint")
	if err := st.Close(); err != nil { // the last connection's close checkpoints the WAL
		t.Fatal(err)
	}
	check("after Close")
}

// TestTokensAcrossStores: two Stores on one file (the service, and the command line adding
// and revoking tokens while it runs): a token added or revoked through one counts in the
// other's next lookup, with nothing cached.
func TestTokensAcrossStores(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "desk.db")
	service, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer service.Close()
	secret, tok := newToken(t, "eng", triageAgent, 0)
	if _, err := token.Authenticate(ctx, service, "Bearer "+secret); !errors.Is(err, token.ErrUnknown) {
		t.Fatalf("Authenticate before the token exists = %v, want ErrUnknown", err)
	}
	command, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := command.AddToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if got, err := token.Authenticate(ctx, service, "Bearer "+secret); err != nil || got != tok {
		t.Errorf("Authenticate through the other store = %+v, %v; want %+v", got, err, tok)
	}
	if err := command.RevokeToken(ctx, tok.ID, tokenTime.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	command.Close()
	if _, err := token.Authenticate(ctx, service, "Bearer "+secret); !errors.Is(err, token.ErrRevoked) {
		t.Errorf("Authenticate after a revocation through the other store = %v, want ErrRevoked", err)
	}
}

// TestTokensClosedOrCanceled: after Close every token method is ErrClosed; with a done ctx
// each fails with ctx's error and writes nothing.
func TestTokensClosedOrCanceled(t *testing.T) {
	st := openTempInternal(t)
	_, tok := newToken(t, "eng", triageAgent, 0)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	calls := func(ctx context.Context) map[string]error {
		_, byHash := st.TokenByHash(ctx, tok.Hash)
		_, list := st.Tokens(ctx)
		return map[string]error{
			"AddToken":    st.AddToken(ctx, tok),
			"TokenByHash": byHash,
			"Tokens":      list,
			"RevokeToken": st.RevokeToken(ctx, tok.ID, tokenTime),
		}
	}
	for name, err := range calls(canceled) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a canceled ctx: %v, want context.Canceled", name, err)
		}
	}
	if toks, err := st.Tokens(t.Context()); err != nil || len(toks) != 0 {
		t.Errorf("Tokens after canceled calls = %v, %v; want none", toks, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for name, err := range calls(t.Context()) {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}
