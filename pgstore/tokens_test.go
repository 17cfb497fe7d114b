package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
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

// TestMigrateFromVersion4 opens a database left at schema version 4, before tokens, with
// rows written under that schema (an aside and a keyed row among them), and shows Open
// adding the tokens table and nothing else: the rows' columns as they were, the table not
// rewritten, the desks and their heads unchanged, the keys found; no token exists, and
// tokens can be added, found and revoked, also for a desk that holds no row, which gets no
// desk row from its token.
func TestMigrateFromVersion4(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if err := pgstore.MigrateTo(ctx, pool, 4); err != nil {
		t.Fatal(err)
	}
	if indexExists(t, pool, "transcript_tokens") {
		t.Fatal("version 4 already has the tokens table")
	}
	// Rows as a version-4 store wrote them.
	if _, err := pool.Exec(ctx, `
		INSERT INTO transcript_desks (name, head) VALUES ('eng', 3), ('ops', 1);
		INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, audience, key) VALUES
			('eng', 1, 0, 2, 'ana', 'Ana', 'question', '2025-01-02 03:04:05.000006+00', NULL, 'slack:1.000001'),
			('eng', 2, 1, 3, 'bot', 'Bot', 'private answer', '2025-01-02 03:04:05.000006+00', '[{"type":"person","id":"ana","label":"Ana"}]', NULL),
			('eng', 3, 0, 1, '', '', 'notice', '2025-01-02 03:04:05.000006+00', NULL, NULL),
			('ops', 1, 0, 4, 'workflow', 'CI', 'build green', '2025-01-02 03:04:05.000006+00', NULL, NULL)`); err != nil {
		t.Fatal(err)
	}
	heads := deskHeads(t, pool)
	st := openMigrated(t, pool, dsn, 4)
	at := time.Date(2025, 1, 2, 3, 4, 5, 6000, time.UTC)
	ana := transcript.Person("ana", "Ana")
	want := []transcript.Message{
		{Seq: 3, Author: transcript.Operator(), Content: "notice", At: at},
		{Seq: 2, Parent: 1, Author: transcript.Agent("bot", "Bot"), Content: "private answer", At: at, Audience: []transcript.Author{ana}},
		{Seq: 1, Author: ana, Content: "question", At: at, Key: "slack:1.000001"},
	}
	if page := mustRead(t, st.Log("eng"), 0, 10); !reflect.DeepEqual(page.Messages, want) {
		t.Errorf("desk eng after the migration:\n got %+v\nwant %+v", page.Messages, want)
	}
	if found, err := st.LookupKeys(ctx, "eng", []string{"slack:1.000001"}); err != nil || !cmp.Equal(found, map[string]transcript.Message{"slack:1.000001": want[2]}) {
		t.Errorf("LookupKeys after the migration: %v, %v", found, err)
	}
	if toks, err := st.Tokens(ctx); err != nil || len(toks) != 0 {
		t.Errorf("Tokens after the migration = %v, %v; want none", toks, err)
	}

	secret, tok := newToken(t, "eng", transcript.Agent("triage", "Triage"), 0)
	_, fresh := newToken(t, "no-rows-yet", ana, time.Second)
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
	if diff := cmp.Diff(heads, deskHeads(t, pool)); diff != "" {
		t.Errorf("the desks after adding tokens (-before +after): a token makes no desk\n%s", diff)
	}
	if m, err := st.Append(ctx, "eng", transcript.Message{Parent: 3, Author: tok.Participant, Content: "as the token's participant"}); err != nil || m.Seq != 4 {
		t.Errorf("Append after the migration: %+v, %v; want row 4", m, err)
	}
}

// deskHeads returns every desk's head, by name.
func deskHeads(t *testing.T, pool *pgxpool.Pool) map[string]int64 {
	t.Helper()
	rows, err := pool.Query(t.Context(), `SELECT name, head FROM transcript_desks`)
	if err != nil {
		t.Fatal(err)
	}
	heads := make(map[string]int64)
	var (
		name string
		head int64
	)
	if _, err := pgx.ForEachRow(rows, []any{&name, &head}, func() error { heads[name] = head; return nil }); err != nil {
		t.Fatal(err)
	}
	return heads
}

// TestTokenQueryPlans shows, with EXPLAIN ANALYZE on a new table of one token and then on
// 20,000 tokens, that a lookup by hash
// (TokenByHash, on every request) is one probe of the hash's unique index and a revocation
// one of the primary key's, under custom and generic plans, and that neither reads another
// row. A list reads the table, all of it by definition, and is only shown.
func TestTokenQueryPlans(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	// On a new table of a few rows, without statistics, the generic plans probe the indexes
	// too (PostgreSQL keeps a generic plan until the table is analyzed).
	_, tok := newToken(t, "eng", transcript.Agent("triage", "Triage"), 0)
	if err := st.AddToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, sql, args, index string }{
		{"TokenByHash", pgstore.TokenByHashSQL, fmt.Sprintf(`'\x%x'::bytea`, tok.Hash), "transcript_tokens_hash_key"},
		{"RevokeToken", pgstore.RevokeTokenSQL, fmt.Sprintf(`'%s', now()`, tok.ID), "transcript_tokens_pkey"},
	} {
		text, plan := explain(t, pool, "force_generic_plan", c.sql, c.args)
		t.Logf("%s on a new table:\n%s", c.name, text)
		scans := plan.scans()
		if len(scans) == 0 {
			t.Errorf("%s on a new table: no scan in the plan", c.name)
		}
		for _, s := range scans {
			if s.IndexName != c.index || s.ActualRows != 1 {
				t.Errorf("%s on a new table: %s on %s (index %q, %v rows), want an index scan using %s finding 1 row", c.name, s.NodeType, s.RelationName, s.IndexName, s.ActualRows, c.index)
			}
		}
	}

	if _, err := pool.Exec(ctx, `
		INSERT INTO transcript_tokens (id, hash, desk, author_kind, author_id, author_label, created)
		SELECT 'tok_' || substr(md5(i::text), 1, 12), sha256(i::text::bytea), 'desk ' || (i % 50), 3, 'agent' || i, 'Agent', now()
		FROM generate_series(1, 20000) AS i;
		ANALYZE transcript_tokens`); err != nil {
		t.Fatal(err)
	}
	var id string
	if err := pool.QueryRow(ctx, `SELECT substr(md5('777'), 1, 12)`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	cases := []explainCase{
		{"TokenByHash, in Authenticate", pgstore.TokenByHashSQL, `sha256('777'::bytea)`, "transcript_tokens_hash_key", 1},
		{"TokenByHash of an unknown hash", pgstore.TokenByHashSQL, `sha256('unknown'::bytea)`, "transcript_tokens_hash_key", 0},
		{"RevokeToken", pgstore.RevokeTokenSQL, fmt.Sprintf(`'tok_%s', now()`, id), "transcript_tokens_pkey", 1},
	}
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		for _, c := range cases {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				text, plan := explain(t, pool, mode, c.sql, c.args)
				t.Logf("%s, %s:\n%s", c.name, mode, text)
				scans := plan.scans()
				if len(scans) == 0 {
					t.Fatalf("no scan in the plan")
				}
				var read float64
				for _, s := range scans {
					if s.NodeType == "Seq Scan" || s.IndexName != c.index {
						t.Errorf("%s on %s (index %q), want an index scan using %s", s.NodeType, s.RelationName, s.IndexName, c.index)
					}
					read += s.ActualRows * max(s.ActualLoops, 1)
				}
				if read > c.maxRows {
					t.Errorf("the plan read %v rows, want at most %v", read, c.maxRows)
				}
			})
		}
	}
	rows, err := pool.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+pgstore.ListTokensSQL)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Tokens:\n%s", strings.Join(lines, "\n"))
}

// TestTokenSchema: the table refuses, even from outside the package, a hash that is not 32
// bytes, a hash or an id twice, an id not of an ID's form, an unknown kind and an empty
// desk.
func TestTokenSchema(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	_, tok := newToken(t, "eng", transcript.Agent("triage", "Triage"), 0)
	if err := st.AddToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	insert := `INSERT INTO transcript_tokens (id, hash, desk, author_kind, author_id, author_label, created) VALUES ($1, $2, $3, $4, $5, $6, now())`
	other := token.Hash("trs_other")
	otherID := token.IDOf(other)
	for _, bad := range []struct {
		name string
		args []any
	}{
		{"a hash of 31 bytes", []any{otherID, other[:31], "eng", 3, "x", ""}},
		{"a hash of 33 bytes", []any{otherID, append(other[:], 0), "eng", 3, "x", ""}},
		{"no hash", []any{otherID, nil, "eng", 3, "x", ""}},
		{"the hash twice", []any{otherID, tok.Hash[:], "eng", 3, "x", ""}},
		{"the id twice", []any{tok.ID, other[:], "eng", 3, "x", ""}},
		{"no id", []any{nil, other[:], "eng", 3, "x", ""}},
		{"an id in upper case", []any{strings.ToUpper(otherID), other[:], "eng", 3, "x", ""}},
		{"an id too short", []any{otherID[:15], other[:], "eng", 3, "x", ""}},
		{"kind 0", []any{otherID, other[:], "eng", 0, "x", ""}},
		{"kind 5", []any{otherID, other[:], "eng", 5, "x", ""}},
		{"an empty desk", []any{otherID, other[:], "", 3, "x", ""}},
	} {
		if _, err := pool.Exec(ctx, insert, bad.args...); err == nil {
			t.Errorf("%s: the schema took it", bad.name)
		}
	}
	if toks, err := st.Tokens(ctx); err != nil || !cmp.Equal(toks, []token.Token{tok}) {
		t.Errorf("Tokens = %+v, %v; want only %+v", toks, err, tok)
	}
}

// TestTokensAcrossStores: two Stores on one database (the service, and the command line
// adding and revoking tokens while it runs): a token added or revoked through one counts in
// the other's next lookup, with nothing cached.
func TestTokensAcrossStores(t *testing.T) {
	t.Parallel()
	service, dsn := openStore(t)
	ctx := t.Context()
	secret, tok := newToken(t, "eng", transcript.Agent("triage", "Triage"), 0)
	if _, err := token.Authenticate(ctx, service, "Bearer "+secret); !errors.Is(err, token.ErrUnknown) {
		t.Fatalf("Authenticate before the token exists = %v, want ErrUnknown", err)
	}
	command, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer command.Close()
	if err := command.AddToken(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if got, err := token.Authenticate(ctx, service, "Bearer "+secret); err != nil || got != tok {
		t.Errorf("Authenticate through the other store = %+v, %v; want %+v", got, err, tok)
	}
	if err := command.RevokeToken(ctx, tok.ID, tokenTime.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := token.Authenticate(ctx, service, "Bearer "+secret); !errors.Is(err, token.ErrRevoked) {
		t.Errorf("Authenticate after a revocation through the other store = %v, want ErrRevoked", err)
	}
}

// TestTokensCanceled: with a done ctx each token method fails with ctx's error and writes
// nothing.
func TestTokensCanceled(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	_, tok := newToken(t, "eng", transcript.Agent("triage", "Triage"), 0)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	_, byHash := st.TokenByHash(canceled, tok.Hash)
	_, list := st.Tokens(canceled)
	for name, err := range map[string]error{
		"AddToken":    st.AddToken(canceled, tok),
		"TokenByHash": byHash,
		"Tokens":      list,
		"RevokeToken": st.RevokeToken(canceled, tok.ID, tokenTime),
	} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a canceled ctx: %v, want context.Canceled", name, err)
		}
	}
	if toks, err := st.Tokens(t.Context()); err != nil || len(toks) != 0 {
		t.Errorf("Tokens after canceled calls = %v, %v; want none", toks, err)
	}
}

// TestSimpleProtocolTokens runs the token checks on a store whose pool uses the simple
// query protocol, where hashes and times travel as text.
func TestSimpleProtocolTokens(t *testing.T) {
	t.Parallel()
	st, err := pgstore.Open(t.Context(), withParam(newDatabase(t), "default_query_exec_mode", "simple_protocol"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	storetest.TokenRule(t, st)
}
