package pgstore_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// Thread lookups, in the (desk, parent, seq) index: a thread's newest direct replies below a
// bound, a root's first reply, a desk's newest roots.
const (
	threadRepliesSQL = `
SELECT seq, parent, author_kind, author_id, author_label, content, at, audience, key
FROM transcript_messages
WHERE desk = $1 AND parent = $2 AND seq < $3
ORDER BY seq DESC
LIMIT $4`
	firstReplySQL = `
SELECT seq, parent, author_kind, author_id, author_label, content, at, audience, key
FROM transcript_messages
WHERE desk = $1 AND parent = $2
ORDER BY seq
LIMIT 1`
	newestRootsSQL = `
SELECT seq, parent, author_kind, author_id, author_label, content, at, audience, key
FROM transcript_messages
WHERE desk = $1 AND parent = 0 AND seq < $2
ORDER BY seq DESC
LIMIT $3`
)

// planNode is a node of EXPLAIN (FORMAT JSON)'s tree, the parts the test looks at.
type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	ActualRows   float64    `json:"Actual Rows"`
	ActualLoops  float64    `json:"Actual Loops"`
	Plans        []planNode `json:"Plans"`
}

// scans returns every node of the tree that reads a table or an index.
func (n planNode) scans() []planNode {
	var out []planNode
	if strings.Contains(n.NodeType, "Scan") && n.NodeType != "Function Scan" { // unnest reads no table
		out = append(out, n)
	}
	for _, c := range n.Plans {
		out = append(out, c.scans()...)
	}
	return out
}

// explainCase is one query whose plan must read transcript_messages through index and at
// most maxRows index entries in all.
type explainCase struct {
	name    string
	sql     string
	args    string // the EXECUTE arguments, as SQL literals
	index   string
	maxRows float64
}

// TestQueryPlans shows, with EXPLAIN ANALYZE on two desks of 50,000 rows each, a third
// whose 50,000 rows all have keys and a fourth whose every tenth row is a correction, that
// the port's read (ReadBefore), the thread lookups, the lookup by key and a correction's
// lookups and updates use their indexes and read only the rows they return (plus the one
// ReadBefore looks ahead), never a whole desk: under the custom
// plans PostgreSQL makes for the first executions of a prepared statement and under the
// generic plan it may switch to later (pgx prepares and caches every statement). The plans
// are logged (go test -v -run TestQueryPlans ./pgstore).
func TestQueryPlans(t *testing.T) {
	t.Parallel()
	_, dsn := openStore(t)
	pool := connect(t, dsn)
	const rows = 50_000
	loadDesk(t, pool, "eng", rows)
	loadDesk(t, pool, "ops", rows)
	keyed := make([]transcript.Message, rows)
	for i := range keyed {
		keyed[i] = loadRow(int64(i + 1))
		keyed[i].Key = fmt.Sprintf("keyed-%d", i+1)
	}
	copyDesk(t, pool, "keyed", keyed)
	corrected := make([]transcript.Message, rows) // rows 100h+5, 100h+15, ..., 100h+95 edit row 100h+1
	for i := range corrected {
		corrected[i] = loadRow(int64(i + 1))
		if seq := i + 1; seq%10 == 5 {
			corrected[i].Parent, corrected[i].Corrects = 0, transcript.Sequence(seq-seq%100+1)
		}
	}
	copyDesk(t, pool, "corrected", corrected)
	const maxSeq = "9223372036854775807"
	root := int64(rows/2 - (rows/2-1)%5) // a root in the middle of the desk
	cases := []explainCase{
		{"ReadBefore, newest page", pgstore.ReadBeforeSQL, fmt.Sprintf("'eng', %s, 513", maxSeq), "transcript_messages_pkey", 513},
		{"ReadBefore, a page in the middle", pgstore.ReadBeforeSQL, fmt.Sprintf("'eng', %d, 65", rows/2), "transcript_messages_pkey", 65},
		{"thread replies", threadRepliesSQL, fmt.Sprintf("'eng', %d, %s, 30", root, maxSeq), "transcript_messages_thread", 30},
		{"first reply", firstReplySQL, fmt.Sprintf("'eng', %d", root), "transcript_messages_thread", 1},
		{"newest roots", newestRootsSQL, fmt.Sprintf("'eng', %d, 30", rows/2), "transcript_messages_thread", 30},
		{"append's parents", pgstore.ParentsSQL, fmt.Sprintf("'eng', '{1,%d,%d}'", root, rows), "transcript_messages_pkey", 3},
		{"append's parent", pgstore.ParentSQL, fmt.Sprintf("'eng', %d", root), "transcript_messages_pkey", 1},
		{"row by key", pgstore.KeyRowSQL, fmt.Sprintf("'keyed', 'keyed-%d'", root), "transcript_messages_key", 1},
		// 3 rows from 4 probes: EXPLAIN rounds the rows a loop (0.75) up to 1, so 4 in all.
		{"rows by key", pgstore.KeyRowsSQL, fmt.Sprintf("'keyed', '{keyed-1,keyed-%d,keyed-%d,missing}'", root, rows), "transcript_messages_key", 4},
		{"rows by key, of a desk without keys", pgstore.KeyRowsSQL, fmt.Sprintf("'eng', '{keyed-1,keyed-%d}'", root), "transcript_messages_key", 0},
		{"append's stored rows", pgstore.StoredRowsSQL, fmt.Sprintf("'eng', '{1,%d,%d}'", root, rows), "transcript_messages_pkey", 3},
		{"append's stored row", pgstore.StoredRowSQL, fmt.Sprintf("'eng', %d", root), "transcript_messages_pkey", 1},
		{"a correction's revision", pgstore.ReviseSQL, fmt.Sprintf("'eng', %d, '', true, %d", root, rows+1), "transcript_messages_pkey", 1},
		{"a redaction's erasure", pgstore.EraseSQL, fmt.Sprintf("'corrected', %d, %s", rows/2+1, maxSeq), "transcript_messages_corrections", 10},
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
}

// TestLookupPlansOnANewTable: on a table of a few rows, without statistics, the generic
// plans of the append's lookups, of its parents and of its keys, probe their indexes, as on
// a large one: PostgreSQL keeps a generic plan until the table is analyzed, so a plan that
// scans the desk there would stay while the desk grows.
func TestLookupPlansOnANewTable(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	for i := range 3 {
		if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: alice, Content: "hi", Key: fmt.Sprint("k", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ name, sql, args, index string }{
		{"append's parents", pgstore.ParentsSQL, "'eng', '{1,3}'", "transcript_messages_pkey"},
		{"rows by key", pgstore.KeyRowsSQL, "'eng', '{k1,k3,missing}'", "transcript_messages_key"},
		{"append's parent", pgstore.ParentSQL, "'eng', 2", "transcript_messages_pkey"},
		{"row by key", pgstore.KeyRowSQL, "'eng', 'k2'", "transcript_messages_key"},
		{"append's stored rows", pgstore.StoredRowsSQL, "'eng', '{1,3}'", "transcript_messages_pkey"},
		{"append's stored row", pgstore.StoredRowSQL, "'eng', 2", "transcript_messages_pkey"},
		{"a correction's revision", pgstore.ReviseSQL, "'eng', 2, '', true, 4", "transcript_messages_pkey"},
		{"a redaction's erasure", pgstore.EraseSQL, "'eng', 2, 3", "transcript_messages_corrections"},
	} {
		text, plan := explain(t, connect(t, dsn), "force_generic_plan", c.sql, c.args)
		t.Logf("%s on a new table:\n%s", c.name, text)
		var scans []planNode
		for _, s := range plan.scans() {
			if s.RelationName == "transcript_messages" {
				scans = append(scans, s)
			}
		}
		if len(scans) == 0 {
			t.Errorf("%s: no scan of transcript_messages in the plan", c.name)
		}
		for _, s := range scans {
			if s.IndexName != c.index {
				t.Errorf("%s: %s on %s (index %q), want an index scan using %s", c.name, s.NodeType, s.RelationName, s.IndexName, c.index)
			}
		}
	}
}

// explain prepares sql on one connection under plan_cache_mode mode, runs EXPLAIN ANALYZE on
// EXECUTE with args, and returns the plan as text and as a tree. Each EXPLAIN ANALYZE runs
// in a transaction of its own that it rolls back, so that a statement that writes (an
// append's insert) leaves the tables as they were.
func explain(t *testing.T, pool *pgxpool.Pool, mode, sql, args string) (string, planNode) {
	t.Helper()
	ctx := t.Context()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, stmt := range []string{"SET plan_cache_mode = " + mode, "PREPARE explained AS " + sql} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	defer conn.Exec(ctx, "DEALLOCATE explained; RESET plan_cache_mode")
	inTx := func() {
		if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
	}
	rollback := func() {
		if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	}
	var lines []string
	inTx()
	rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE explained("+args+")")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rollback()
	var raw string
	inTx()
	if err := conn.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE explained("+args+")").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	rollback()
	var doc []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil || len(doc) != 1 {
		t.Fatalf("EXPLAIN JSON: %v (%d plans)", err, len(doc))
	}
	return strings.Join(lines, "\n"), doc[0].Plan
}
