package sqlitestore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
)

// queryPlan returns the detail column of EXPLAIN QUERY PLAN for query.
func queryPlan(t *testing.T, st *Store, query string, args ...any) []string {
	t.Helper()
	rows, err := st.readers.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatalf("EXPLAIN QUERY PLAN %s: %v", query, err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notUsed int
		var detail string
		if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestQueryPlans shows the plan of every query the store makes, and of the benchmarks'
// hand-written views, on a desk with rows and fresh statistics (ANALYZE), and checks that
// none scans the messages table or one of its indexes: every access to messages is a
// SEARCH, an index range or point lookup, so no read's cost grows with the desk.
func TestQueryPlans(t *testing.T) {
	st := openTempInternal(t)
	keyed := benchMessages(3000)
	for i := range keyed {
		if i%3 != 0 { // most rows keyed, some not: the index is partial
			keyed[i].Key = fmt.Sprintf("slack:%d.%06d", 1712345678+i, i)
		}
	}
	for desk, msgs := range map[string][]transcript.Message{"eng": benchMessages(3000), "sales": benchAsideMessages(3000, 20), "keyed": keyed} {
		if err := st.AppendBatch(t.Context(), desk, msgs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.writer.Exec(`ANALYZE`); err != nil {
		t.Fatal(err)
	}
	queries := []struct {
		name  string
		query string
		args  []any
		uses  string // an index the plan must use
	}{
		{"ReadBefore", readPageSQL, []any{"eng", 1500, transcript.PageSize + 1}, "USING INDEX messages_desk_seq (desk=? AND seq<?)"},
		{"ReadBefore from the newest row", readPageSQL, []any{"eng", int64(1) << 62, 61}, "USING INDEX messages_desk_seq (desk=? AND seq<?)"},
		{"the desk's head, in Append", deskHeadSQL, []any{"eng"}, "messages_desk_seq (desk=?)"},
		{"Desks", listDesksSQL, nil, ""},
		{"the desks' heads, in Watch's poll", headsSQL, nil, "messages_desk_seq (desk=?)"},
		{"an author's row, in Append", findAuthorSQL, []any{int64(transcript.KindAgent), "triage", "Triage"}, "sqlite_autoindex_authors_1 (kind=? AND ident=? AND label=?)"},
		{"the authors of a page, in ReadBefore", readAuthorsSQL, []any{"[1,3]"}, "SEARCH authors USING INTEGER PRIMARY KEY (rowid=?)"},
		{"the audiences of a page, in ReadBefore", readAudiencesSQL, []any{"[1,3]"}, "SEARCH audiences USING INTEGER PRIMARY KEY (rowid=?)"},
		{"an audience's row, in Append", findAudienceSQL, []any{`[{"kind":3,"ident":"triage","label":"Triage"}]`}, "sqlite_autoindex_audiences_1 (members=?)"},
		{"the parents and targets of new rows, in Append", parentsSQL, []any{2, "[17,1500,2999]", "[1500]"}, "USING INDEX messages_desk_seq (desk=? AND seq=?)"},
		{"a correction's target, in Append", reviseSQL, []any{1, 17, "", true, 3001}, "USING INDEX messages_desk_seq (desk=? AND seq=?)"},
		{"a correction's target before it changes, in Append", targetSQL, []any{1, 17}, "USING INDEX messages_desk_seq (desk=? AND seq=?)"},
		{"a redacted target's corrections, in Append", eraseCorrectionsSQL, []any{1, 17}, "messages_desk_corrects (desk=? AND corrects=?)"}, // covering: a trigger makes the update collect its rows first
		{"the row holding a replayed key, in Append", keyRowSQL, []any{3, "slack:1712345679.000001"}, "USING INDEX messages_desk_key (desk=? AND key=?)"},
		{"the rows holding a batch's keys, in AppendBatch", keyRowsSQL, []any{"keyed", `["slack:1712345679.000001","absent"]`}, "USING INDEX messages_desk_key (desk=? AND key=?)"},
		{"LookupKeys, a chunk", keyRowsSQL, []any{"keyed", keyList(keyed[:keyLookupChunk])}, "USING INDEX messages_desk_key (desk=? AND key=?)"},
		{"LookupKeys on a desk without keys", keyRowsSQL, []any{"eng", `["a","b"]`}, "USING INDEX messages_desk_key (desk=? AND key=?)"},
		{"thread lookup: a row's replies", `SELECT seq, content FROM messages WHERE desk = ?1 AND parent = ?2 ORDER BY seq LIMIT 30`, []any{1, 17}, "messages_desk_parent_seq (desk=? AND parent=?)"},
		{"the reader sets of a search's viewer", viewerSetsSQL, []any{"sales", int64(transcript.KindAgent), "triage"}, "PRIMARY KEY (desk=? AND kind=? AND ident=?)"},
		{"the reader sets of the operator's search", allSetsSQL, []any{"sales"}, "sqlite_autoindex_reader_sets_1 (desk=?)"},
		{"a reader set's row, in Append", findReaderSetSQL, []any{1, `[[3,"triage"],[3,"review"]]`}, "sqlite_autoindex_reader_sets_1 (desk=? AND members=?)"},
		{"Search", searchSQL, []any{1, searchMatch(st, 1, "deploy"), int64(1) << 62, 0, 21, st.workID}, "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)"},
		{"Search below a bound", searchSQL, []any{1, searchMatch(st, 1, "deploy"), 1500, 0, 21, st.workID}, "SEARCH b USING COVERING INDEX messages_desk_seq (desk=? AND seq=?)"},
		{"Search in a thread, below a bound", searchRepliesSQL, []any{1, searchMatch(st, 1, "deploy", "the"), 1500, 17, 4, st.workID, threadMatch(st, 1, 17)}, "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)"},
		{"Search in a thread", searchRepliesSQL, []any{1, searchMatch(st, 1, "deploy"), int64(1) << 62, 17, 21, st.workID, threadMatch(st, 1, 17)}, "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)"},
		{"Search of a thread's root", searchRootSQL, []any{1, searchMatch(st, 1, "deploy"), int64(1) << 62, 17, 21, st.workID}, "USING INDEX messages_desk_seq (desk=? AND seq=?)"},
		{"a digest below a bound, in Digest", digestSQL, []any{"eng", 0, 1500}, "digests_desk_thread_through (desk=? AND thread=? AND through<?)"},
		{"the newest digest, in PutDigest", newestDigestSQL, []any{1, 17}, "digests_desk_thread_through (desk=? AND thread=?)"},
		{"corrections after a fold's read, in PutDigest", correctedSinceSQL, []any{1, 2990, 2000}, "messages_desk_seq (desk=? AND seq>?)"},
		{"the digests a revision deletes, in the trigger", `DELETE FROM digests WHERE desk = ?1 AND thread IN (0, ?2) AND through >= ?3`, []any{1, 17, 20}, "digests_desk_thread_through (desk=? AND thread=? AND through>?)"},
		{"baseline SQL-window", channelSQL["window"], []any{"eng"}, "messages_desk_seq"},
		{"baseline SQL-correlated", channelSQL["correlated"], []any{"eng"}, "messages_desk_parent_seq"},
		{"baseline SQL-bounded", channelSQL["bounded"], []any{"eng"}, "messages_desk_parent_seq"},
	}
	for _, q := range queries {
		plan := queryPlan(t, st, q.query, q.args...)
		t.Logf("%s:\n\t%s", q.name, strings.Join(plan, "\n\t"))
		used := q.uses == ""
		for _, step := range plan {
			if strings.HasPrefix(step, "SCAN messages") || strings.HasPrefix(step, "SCAN m ") || step == "SCAN m" {
				t.Errorf("%s: plan step %q scans the messages table", q.name, step)
			}
			used = used || strings.Contains(step, q.uses)
		}
		if !used {
			t.Errorf("%s: plan does not use %s:\n\t%s", q.name, q.uses, strings.Join(plan, "\n\t"))
		}
		if strings.HasPrefix(q.name, "Search") {
			checkSearchPlan(t, q.name, plan)
		}
	}
}

// checkSearchPlan checks the plan of searchSQL: the FTS5 index finds the candidates, and
// yields them in the query's order (rowid DESC), so that no sort holds every match before
// the limit applies; every row is then joined by its id. The plan of searchRepliesSQL (a
// name with "in a thread") walks the thread's token in the FTS5 index the same way, and
// probes the index for each reply by its rowid (FTS5's idxStr "=": a rowid constraint,
// "M": the MATCH), never walking a term's matches across the desk; that of searchRootSQL
// (a name with "root") looks the root up on its key and probes it alike.
func checkSearchPlan(t *testing.T, name string, plan []string) {
	t.Helper()
	root, thread := strings.Contains(name, "root"), strings.Contains(name, "in a thread")
	fts, probes := false, 0
	for _, step := range plan {
		fts = fts || strings.HasPrefix(step, "SCAN t VIRTUAL TABLE INDEX")
		if strings.HasPrefix(step, "SCAN message_terms VIRTUAL TABLE INDEX") {
			if !strings.HasPrefix(step, "SCAN message_terms VIRTUAL TABLE INDEX 0:=M") {
				t.Errorf("%s: plan step %q reads the FTS5 index other than by a row's id", name, step)
			}
			probes++
		}
		if strings.Contains(step, "TEMP B-TREE") {
			t.Errorf("%s: plan step %q sorts the matches", name, step)
		}
	}
	switch {
	case root && (fts || probes == 0):
		t.Errorf("%s: the plan does not probe the FTS5 index by the root's id:\n\t%s", name, strings.Join(plan, "\n\t"))
	case thread && (!fts || probes == 0):
		t.Errorf("%s: the plan does not walk the thread's token and probe each reply:\n\t%s", name, strings.Join(plan, "\n\t"))
	case !root && !thread && (!fts || probes != 0):
		t.Errorf("%s: the plan does not find candidates on the FTS5 index:\n\t%s", name, strings.Join(plan, "\n\t"))
	}
}

// keyList returns the keys of msgs as keyRowsSQL takes them: a JSON array of strings.
func keyList(msgs []transcript.Message) string {
	var keys []string
	for _, m := range msgs {
		if m.Key != "" {
			keys = append(keys, m.Key)
		}
	}
	b, _ := json.Marshal(keys)
	return string(b)
}

// searchMatch returns the FTS5 query of a search of desk for terms by a viewer of the
// public set and two sets of asides.
func searchMatch(st *Store, desk int64, terms ...string) string {
	var h tokenHasher
	return string(h.appendMatch(nil, st.searchKey, desk, []int64{publicReaderSet, 1, 2}, terms))
}

// threadMatch returns the FTS5 query of the replies to parent on desk, for the viewer of
// searchMatch.
func threadMatch(st *Store, desk, parent int64) string {
	var h tokenHasher
	return string(h.appendThreadMatch(nil, st.searchKey, desk, []int64{publicReaderSet, 1, 2}, parent))
}
