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
SELECT seq, parent, author_kind, author_id, author_label, content, at, audience
FROM transcript_messages
WHERE desk = $1 AND parent = $2 AND seq < $3
ORDER BY seq DESC
LIMIT $4`
	firstReplySQL = `
SELECT seq, parent, author_kind, author_id, author_label, content, at, audience
FROM transcript_messages
WHERE desk = $1 AND parent = $2
ORDER BY seq
LIMIT 1`
	newestRootsSQL = `
SELECT seq, parent, author_kind, author_id, author_label, content, at, audience
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

// TestQueryPlans shows, with EXPLAIN ANALYZE on two desks of 50,000 rows each, that the
// port's read (ReadBefore) and the thread lookups use their indexes and read only the rows
// they return (plus the one ReadBefore looks ahead), never a whole desk: under the custom
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
	const maxSeq = "9223372036854775807"
	root := int64(rows/2 - (rows/2-1)%5) // a root in the middle of the desk
	cases := []explainCase{
		{"ReadBefore, newest page", pgstore.ReadBeforeSQL, fmt.Sprintf("'eng', %s, 513", maxSeq), "transcript_messages_pkey", 513},
		{"ReadBefore, a page in the middle", pgstore.ReadBeforeSQL, fmt.Sprintf("'eng', %d, 65", rows/2), "transcript_messages_pkey", 65},
		{"thread replies", threadRepliesSQL, fmt.Sprintf("'eng', %d, %s, 30", root, maxSeq), "transcript_messages_thread", 30},
		{"first reply", firstReplySQL, fmt.Sprintf("'eng', %d", root), "transcript_messages_thread", 1},
		{"newest roots", newestRootsSQL, fmt.Sprintf("'eng', %d, 30", rows/2), "transcript_messages_thread", 30},
		{"append's parents", pgstore.ParentsSQL, fmt.Sprintf("'eng', '{1,%d,%d}'", root, rows), "transcript_messages_pkey", 3},
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

// TestParentsPlanOnANewTable: on a table of a few rows, without statistics, the generic plan
// of the append's parent lookup probes the primary key, as on a large one: PostgreSQL keeps
// a generic plan until the table is analyzed, so a plan that scans the desk there would
// stay while the desk grows.
func TestParentsPlanOnANewTable(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	for range 3 {
		if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: alice, Content: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	text, plan := explain(t, connect(t, dsn), "force_generic_plan", pgstore.ParentsSQL, "'eng', '{1,3}'")
	t.Logf("append's parents on a new table:\n%s", text)
	for _, s := range plan.scans() {
		if s.IndexName != "transcript_messages_pkey" {
			t.Errorf("%s on %s (index %q), want an index scan using transcript_messages_pkey", s.NodeType, s.RelationName, s.IndexName)
		}
	}
}

// explain prepares sql on one connection under plan_cache_mode mode, runs EXPLAIN ANALYZE on
// EXECUTE with args, and returns the plan as text and as a tree.
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
	var lines []string
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
	var raw string
	if err := conn.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE explained("+args+")").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var doc []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil || len(doc) != 1 {
		t.Fatalf("EXPLAIN JSON: %v (%d plans)", err, len(doc))
	}
	return strings.Join(lines, "\n"), doc[0].Plan
}
