package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
)

var (
	triage = transcript.Agent("triage", "Triage")
	review = transcript.Agent("review", "Reviewer")
)

// secret is in the content of every aside these tests write, so that an error quoting one
// shows.
const secret = "SECRET-aside"

// tripConn is a connection to the server that counts round trips: each write that follows
// a read (or comes first) starts one.
type tripConn struct {
	net.Conn
	trips   *atomic.Int64
	written atomic.Bool // the last operation was a write
}

func (c *tripConn) Write(p []byte) (int, error) {
	if !c.written.Swap(true) {
		c.trips.Add(1)
	}
	return c.Conn.Write(p)
}

func (c *tripConn) Read(p []byte) (int, error) {
	c.written.Store(false)
	return c.Conn.Read(p)
}

// openCountingStore opens a Store on a database of its own over one connection that
// counts its round trips, never pinged on acquire.
func openCountingStore(t *testing.T) (*pgstore.Store, *atomic.Int64) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(withPoolSize(newDatabase(t), 1))
	if err != nil {
		t.Fatal(err)
	}
	trips := new(atomic.Int64)
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := new(net.Dialer).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &tripConn{Conn: c, trips: trips}, nil
	}
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	st, err := pgstore.New(t.Context(), pool)
	if err != nil {
		t.Fatal(err)
	}
	return st, trips
}

// TestAppendRoundTrips counts the round trips of appends: one for an append that replies
// to nothing or only to rows of its own batch (the desk's lock is then never held across a
// round trip); two for one that replies to a stored row (whose author and audience the
// reply rule reads under the lock first), and for a refusal the reply rule makes against a
// stored parent; none for a refusal of the input alone. With keys: one for a root's new
// key (its insert made conditional on the key's absence), two for a root's replay or
// conflict (the second reads the stored row), two for a reply's new key or replay (the
// lookup in the first), a batch skipping some rows and a batch skipping all; none for a
// batch naming one key twice.
func TestAppendRoundTrips(t *testing.T) {
	t.Parallel()
	st, trips := openCountingStore(t)
	ctx := t.Context()
	asideTo := func(parent transcript.Sequence, author transcript.Author, audience ...transcript.Author) transcript.Message {
		return transcript.Message{Parent: parent, Author: author, Content: secret, Audience: audience}
	}
	for pass := range 2 { // the first pass prepares the statements on the connection
		keyed := func(key string, parent transcript.Sequence, content string) transcript.Message {
			return transcript.Message{Key: fmt.Sprintf("%s-%d", key, pass), Parent: parent, Author: alice, Content: content}
		}
		cases := []struct {
			name    string
			msgs    []transcript.Message // one: Append; more: AppendBatch
			refusal error                // the sentinel the append is refused with, or nil
			trips   int64
		}{
			{"a desk row", []transcript.Message{{Author: alice, Content: "hi"}}, nil, 1},    // 1
			{"an aside", []transcript.Message{asideTo(0, alice, triage)}, nil, 1},           // 2
			{"a reply to a stored aside", []transcript.Message{asideTo(2, triage)}, nil, 2}, // 3
			{"a reply to a stored desk row", []transcript.Message{{Parent: 1, Author: bot, Content: "re"}}, nil, 2},
			{"a batch of an aside and replies", []transcript.Message{
				asideTo(0, alice, review),
				asideTo(transcript.BatchParent(0), review),
				asideTo(transcript.BatchParent(1), alice),
			}, nil, 1},
			{"a batch replying to stored rows and its own", []transcript.Message{
				asideTo(3, alice),
				asideTo(transcript.BatchParent(0), triage),
				{Parent: 1, Author: bot, Content: "re"},
			}, nil, 2},
			{"an outsider's reply to a stored aside", []transcript.Message{asideTo(2, review)}, transcript.ErrNotReadable, 2},
			{"an outsider's reply to an aside of the batch", []transcript.Message{
				asideTo(0, alice, triage),
				asideTo(transcript.BatchParent(0), review),
			}, transcript.ErrNotReadable, 2},
			{"an audience naming its author", []transcript.Message{asideTo(0, alice, alice)}, transcript.ErrInvalidAudience, 0},
			{"a new key", []transcript.Message{keyed("k", 0, "keyed")}, nil, 1},
			{"a new key replying to a stored row", []transcript.Message{keyed("r", 1, "keyed reply")}, nil, 2},
			{"a replay", []transcript.Message{keyed("k", 0, "keyed")}, nil, 2},
			{"a replay of a reply", []transcript.Message{keyed("r", 1, "keyed reply")}, nil, 2},
			{"a conflict", []transcript.Message{keyed("k", 0, "other")}, transcript.ErrKeyConflict, 2},
			{"a batch of present and new keys", []transcript.Message{keyed("k", 0, "keyed"), keyed("b", transcript.BatchParent(0), "new")}, nil, 2},
			{"a batch of present keys only", []transcript.Message{keyed("k", 0, "keyed"), keyed("b", transcript.BatchParent(0), "new")}, nil, 2},
			{"a batch naming one key twice", []transcript.Message{keyed("d", 0, "x"), keyed("d", 0, "x")}, transcript.ErrInvalidMessage, 0},
		}
		for _, c := range cases {
			before := trips.Load()
			var err error
			if len(c.msgs) == 1 {
				_, err = st.Append(ctx, "eng", c.msgs[0])
			} else {
				err = st.AppendBatch(ctx, "eng", c.msgs)
			}
			switch {
			case c.refusal == nil && err != nil:
				t.Fatalf("%s: %v", c.name, err)
			case c.refusal != nil && !errors.Is(err, c.refusal):
				t.Fatalf("%s: error %v, want one matching %v", c.name, err, c.refusal)
			}
			if got := trips.Load() - before; pass == 1 && got != c.trips {
				t.Errorf("%s: %d round trips, want %d", c.name, got, c.trips)
			}
		}
	}
}

// TestAsideRefusals: the reply rule's refusals and the audience's text checks are
// *AppendErrors naming the message, matching transcript.ErrInvalidMessage and their
// sentinel, quoting no content, and storing nothing; a batch's aside is named by the Seq it
// would have had.
func TestAsideRefusals(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	for _, m := range []transcript.Message{
		{Author: alice, Content: "desk row"},
		{Author: alice, Content: secret, Audience: []transcript.Author{triage}},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	with := func(m transcript.Message, audience ...transcript.Author) transcript.Message {
		m.Audience = audience
		return m
	}
	reply := func(parent transcript.Sequence, author transcript.Author) transcript.Message {
		return transcript.Message{Parent: parent, Author: author, Content: secret + " reply"}
	}
	root := transcript.Message{Author: alice, Content: secret}
	singles := []struct {
		name string
		m    transcript.Message
		kind error
		text string
	}{
		{"outsider's reply", reply(2, review), transcript.ErrNotReadable, "row 2"},
		{"reply naming other readers", with(reply(2, triage), review), transcript.ErrInvalidAudience, "aside 2"},
		{"audience label with NUL", with(root, transcript.Agent("triage", "T\x00")), pgstore.ErrText, "audience entry 0 holds a NUL byte in its label"},
		{"audience id not UTF-8", with(root, bot, transcript.Agent("\xff", "x")), pgstore.ErrText, "audience entry 1's id is not valid UTF-8"},
		{"audience entry invalid", with(root, transcript.Agent("", "x")), transcript.ErrInvalidAuthor, "audience"},
	}
	for _, c := range singles {
		_, err := st.Append(ctx, "eng", c.m)
		checkRejected(t, "Append "+c.name, err, c.kind, c.text, -1)
		checkNoSecret(t, c.name, err)
	}
	batches := []struct {
		name  string
		msgs  []transcript.Message
		index int
		kind  error
		text  string
	}{
		{"outsider's reply to a batch aside", []transcript.Message{
			root, with(root, triage), reply(transcript.BatchParent(1), review),
		}, 2, transcript.ErrNotReadable, "row 4"}, // the aside would have been row 4
		{"outsider's reply by Seq to a batch aside", []transcript.Message{
			with(root, triage), reply(3, review),
		}, 1, transcript.ErrNotReadable, "row 3"},
		{"outsider's reply to a stored aside after good rows", []transcript.Message{
			root, reply(1, review), reply(2, review),
		}, 2, transcript.ErrNotReadable, "row 2"},
		{"reply to a batch reply, naming other readers", []transcript.Message{
			with(root, triage), reply(transcript.BatchParent(0), triage), with(reply(transcript.BatchParent(1), alice), review),
		}, 2, transcript.ErrInvalidAudience, "aside 4"},
	}
	for _, c := range batches {
		err := st.AppendBatch(ctx, "eng", c.msgs)
		checkRejected(t, "AppendBatch "+c.name, err, c.kind, c.text, c.index)
		checkNoSecret(t, c.name, err)
	}
	if got := mustRead(t, st.Log("eng"), 0, 1).Messages[0].Seq; got != 2 {
		t.Errorf("after the refusals the desk's newest row is %d, want 2", got)
	}
}

func checkNoSecret(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("%s: the error quotes an aside's content: %q", what, err)
	}
}

// TestAsidesReadBack: appends return the audience as stored, which pages return in new
// arrays of their own: changing or appending to one page's audience changes nothing else
// (not another row, not a later read, not the store's cache of decoded audiences).
func TestAsidesReadBack(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	var stored []transcript.Message
	for i := range 6 {
		m := transcript.Message{Author: alice, Content: "desk row"}
		if i%3 != 0 {
			m.Content, m.Audience = secret, []transcript.Author{triage, bot} // unordered: stored as [bot triage]
		}
		got, err := st.Append(ctx, "eng", m)
		if err != nil {
			t.Fatal(err)
		}
		if want := canonical(m.Audience); !cmp.Equal(got.Audience, want) {
			t.Errorf("Append: audience %v, want %v", got.Audience, want)
		}
		stored = append([]transcript.Message{got}, stored...)
	}
	page := mustRead(t, st.Log("eng"), 0, 10)
	if diff := cmp.Diff(stored, page.Messages); diff != "" {
		t.Fatalf("the rows read back (-appended +read):\n%s", diff)
	}
	for _, m := range page.Messages {
		if len(m.Audience) > 0 && cap(m.Audience) != len(m.Audience) {
			t.Errorf("row %d: audience of len %d, cap %d: appending to it would write into another's", m.Seq, len(m.Audience), cap(m.Audience))
		}
	}
	// Rows 6 and 5 (page indexes 0 and 1) are neighbours in the page's array of audiences.
	page.Messages[0].Audience = append(page.Messages[0].Audience, review)
	page.Messages[1].Audience[1].Label = "scribbled"
	if want := append(stored[1].Audience[:1:1], transcript.Agent("triage", "scribbled")); !cmp.Equal(page.Messages[1].Audience, want) {
		t.Errorf("row %d: audience %v after appending to its neighbour's, want %v", page.Messages[1].Seq, page.Messages[1].Audience, want)
	}
	if diff := cmp.Diff(stored[2:], page.Messages[2:]); diff != "" {
		t.Errorf("the page's other rows after the caller changed two audiences (-appended +read):\n%s", diff)
	}
	if diff := cmp.Diff(stored, mustRead(t, st.Log("eng"), 0, 10).Messages); diff != "" {
		t.Errorf("a new read after the caller changed a page's audiences (-appended +read):\n%s", diff)
	}
}

// canonical returns audience by kind, then id, as stores keep it.
func canonical(audience []transcript.Author) []transcript.Author {
	out, _ := transcript.Message{Audience: audience}.ResolveAudience(nil)
	return out
}

// TestStoredAudience: the audience column holds the canonical JSON form, and the table
// refuses a value pgstore would never write; a stored value that is not a valid audience
// fails the read, saying so.
func TestStoredAudience(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "x", Audience: []transcript.Author{triage, transcript.Operator(), bot}}); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := pool.QueryRow(ctx, `SELECT audience FROM transcript_messages WHERE desk = 'eng' AND seq = 1`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := `[{"type":"operator"},{"type":"agent","id":"bot","label":"Bot"},{"type":"agent","id":"triage","label":"Triage"}]`; got != want {
		t.Errorf("stored audience %s, want %s", got, want)
	}
	for _, bad := range []string{`[]`, `{"type":"operator"}`, `not json`} {
		_, err := pool.Exec(ctx, `INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, audience)
			VALUES ('eng', 2, 0, 1, '', '', 'x', now(), $1)`, bad)
		if err == nil {
			t.Errorf("the table took the audience %s", bad)
		}
	}
	if _, err := pool.Exec(ctx, `INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, audience)
		VALUES ('eng', 2, 0, 1, '', '', 'x', now(), '[{"type":"nobody"}]')`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Log("eng").ReadBefore(ctx, 0, 10); err == nil || !strings.Contains(err.Error(), "audience of row 2") {
		t.Errorf("ReadBefore over an invalid stored audience: %v, want an error naming the audience of row 2", err)
	}
}

// TestReadAheadCountsAudiences: the rows a Log keeps read ahead are bounded by their
// audiences' text too.
func TestReadAheadCountsAudiences(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	audience := []transcript.Author{transcript.Agent("triage", strings.Repeat("T", 150<<10))}
	for range 6 {
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "short", Audience: audience}); err != nil {
			t.Fatal(err)
		}
	}
	log := st.Log("eng")
	mustRead(t, log, 0, 4) // reads 4 + 2 + 1 rows, finds 6: 300 KiB of audience beyond the page
	if n, _ := pgstore.ReadAhead(log); n != 1 {
		t.Errorf("%d rows with 150 KiB audiences read ahead, want 1", n)
	}
}

// TestSimpleProtocolAsides runs the reply rule's checks on a store whose pool uses the
// simple query protocol, where ReadBefore decodes rows with Scan.
func TestSimpleProtocolAsides(t *testing.T) {
	t.Parallel()
	dsn := withParam(newDatabase(t), "default_query_exec_mode", "simple_protocol")
	st, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	storetest.ReplyRule(t, storetest.DeskOf(st, "eng"))
}
