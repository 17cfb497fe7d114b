package pgstore

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
)

// binaryRow returns the columns of m as PostgreSQL sends readBeforeSQL's row in binary
// format, the audience in its stored form (NULL for a desk row), the key NULL for none.
func binaryRow(t testing.TB, m transcript.Message) [][]byte {
	t.Helper()
	be := binary.BigEndian
	vals := [][]byte{
		be.AppendUint64(nil, uint64(m.Seq)),
		be.AppendUint64(nil, uint64(m.Parent)),
		be.AppendUint16(nil, uint16(m.Author.Kind)),
		[]byte(m.Author.ID),
		[]byte(m.Author.Label),
		[]byte(m.Content),
		be.AppendUint64(nil, uint64(m.At.UnixMicro()-postgresEpoch)),
		nil, // audience, key, corrects, redacted and revised: NULL unless set below
		nil,
		nil,
		nil,
		nil,
	}
	if m.Corrects != 0 {
		vals[correctsColumn] = be.AppendUint64(nil, uint64(m.Corrects))
	}
	if m.Redacted {
		vals[redactedColumn] = []byte{1}
	}
	if m.Revised != 0 {
		vals[revisedColumn] = be.AppendUint64(nil, uint64(m.Revised))
	}
	if m.Key != "" {
		vals[keyColumn] = []byte(m.Key)
	}
	if len(m.Audience) > 0 {
		enc, err := encodeAudience(m.Audience)
		if err != nil {
			t.Fatal(err)
		}
		vals[audienceColumn] = []byte(enc)
	}
	return vals
}

// TestDecodeRowAllocations: decoding a desk row allocates nothing for its audience, and an
// aside whose audience was decoded before costs no more than a desk row.
func TestDecodeRowAllocations(t *testing.T) {
	var cache audienceCache
	desk := transcript.Message{Seq: 7, Parent: 3, Author: transcript.Agent("bot", "Bot"), Content: "hello"}
	aside := desk
	aside.Audience = []transcript.Author{transcript.Operator(), transcript.Person("ana", "Ana")}
	deskVals, asideVals := binaryRow(t, desk), binaryRow(t, aside)
	for _, c := range []struct {
		vals [][]byte
		want transcript.Message
	}{{deskVals, desk}, {asideVals, aside}} {
		got, err := decodeRow(c.vals, &cache)
		if err != nil {
			t.Fatal(err)
		}
		got.At = c.want.At
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("decodeRow (-want +got):\n%s", diff)
		}
	}
	deskAllocs := testing.AllocsPerRun(100, func() { decodeRow(deskVals, &cache) })
	asideAllocs := testing.AllocsPerRun(100, func() { decodeRow(asideVals, &cache) })
	if deskAllocs != 3 || asideAllocs != deskAllocs {
		t.Errorf("decodeRow: %v allocations for a desk row, %v for an aside with a cached audience; want 3 for each (its strings)", deskAllocs, asideAllocs)
	}
	keyed := desk
	keyed.Key = "slack:1712345678.000100"
	keyedVals := binaryRow(t, keyed)
	if got, err := decodeRow(keyedVals, &cache); err != nil || got.Key != keyed.Key {
		t.Errorf("decodeRow of a keyed row: key %q, %v; want %q", got.Key, err, keyed.Key)
	}
	if allocs := testing.AllocsPerRun(100, func() { decodeRow(keyedVals, &cache) }); allocs != deskAllocs+1 {
		t.Errorf("decodeRow: %v allocations for a keyed row, want %v (one more string)", allocs, deskAllocs+1)
	}
}

// TestDecodeRowColumns: a row of any other number of columns is an error, not a panic.
func TestDecodeRowColumns(t *testing.T) {
	vals := binaryRow(t, transcript.Message{Seq: 1, Author: transcript.Operator(), Content: "x"})
	for _, n := range []int{len(vals) - 1, len(vals) + 1} {
		row := append(vals[:len(vals):len(vals)], nil)[:n]
		if _, err := decodeRow(row, new(audienceCache)); err == nil {
			t.Errorf("decodeRow of %d columns: no error", n)
		}
	}
}

// TestDetachAudiences: the rows' audiences end up in one new array, each capped at its end.
func TestDetachAudiences(t *testing.T) {
	shared := []transcript.Author{transcript.Operator(), transcript.Person("ana", "Ana")}
	msgs := []transcript.Message{{Seq: 3, Audience: shared}, {Seq: 2}, {Seq: 1, Audience: shared[1:]}}
	detachAudiences(msgs, 3)
	if diff := cmp.Diff([]transcript.Message{{Seq: 3, Audience: shared}, {Seq: 2}, {Seq: 1, Audience: shared[1:]}}, msgs); diff != "" {
		t.Errorf("detachAudiences (-want +got):\n%s", diff)
	}
	msgs[0].Audience[1].Label = "changed"
	if shared[1].Label != "Ana" || msgs[2].Audience[0].Label != "Ana" {
		t.Error("a detached audience shares its array with the source or another row")
	}
	if cap(msgs[0].Audience) != 2 || cap(msgs[2].Audience) != 1 {
		t.Errorf("caps %d and %d, want 2 and 1", cap(msgs[0].Audience), cap(msgs[2].Audience))
	}
}

// TestAudienceCacheBound: the cache holds at most audienceCacheSize audiences, and none
// whose stored form is over audienceCacheBytes, yet decodes them all.
func TestAudienceCacheBound(t *testing.T) {
	var cache audienceCache
	for i := range audienceCacheSize + 10 {
		want := []transcript.Author{transcript.Agent(fmt.Sprint("agent-", i), "")}
		enc, _ := encodeAudience(want)
		got, err := cache.decode([]byte(enc))
		if err != nil || !cmp.Equal(got, want) {
			t.Fatalf("decode(%s) = %v, %v", enc, got, err)
		}
	}
	if n := len(cache.m); n > audienceCacheSize {
		t.Errorf("the cache holds %d audiences, over its bound of %d", n, audienceCacheSize)
	}
	big := []transcript.Author{transcript.Agent("big", string(make([]byte, audienceCacheBytes)))}
	enc, _ := encodeAudience(big)
	if _, err := cache.decode([]byte(enc)); err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.m[enc]; ok {
		t.Errorf("the cache kept an audience of %d bytes", len(enc))
	}
}

// FuzzDecodeAudience: a stored audience, whatever its bytes, decodes to valid authors or to
// an error, and what decodes encodes back to a form that decodes to the same.
func FuzzDecodeAudience(f *testing.F) {
	for _, s := range []string{
		`[{"type":"operator"}]`,
		`[{"type":"agent","id":"triage","label":"Triage"},{"type":"system","kind":"workflow"}]`,
		`[]`, `null`, `[null]`, `[{"type":"agent"}]`, `[{"type":"system","id":"x"}]`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		audience, err := decodeAudience(b)
		if err != nil {
			return
		}
		if len(audience) == 0 {
			t.Fatalf("decodeAudience(%q): no error and no author", b)
		}
		for _, a := range audience {
			if err := a.Validate(); err != nil {
				t.Fatalf("decodeAudience(%q): invalid author %v: %v", b, a, err)
			}
		}
		enc, err := encodeAudience(audience)
		if err != nil {
			t.Fatalf("encodeAudience(%v): %v", audience, err)
		}
		again, err := decodeAudience([]byte(enc))
		if err != nil || !cmp.Equal(again, audience) {
			t.Fatalf("%q decodes to %v, re-encoded %s decodes to %v, %v", b, audience, enc, again, err)
		}
	})
}
