package pgstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sharedesk/transcript"
)

// scanMessages reads rows of messageColumns (seq, parent, author_kind, author_id,
// author_label, content, at, audience, key, corrects, redacted, revised) into messages, appending to msgs, and decodes
// each aside's audience through audiences. It decodes PostgreSQL's binary format itself,
// which is several times cheaper than a Scan per row, and falls back to Scan if the server
// sent any column in another format. A desk row (audience NULL) costs no allocation for its
// audience, nor a row without a key (key NULL) for its key; the asides' audiences share one
// new array (detachAudiences), never the cache's slices.
func scanMessages(rows pgx.Rows, msgs []transcript.Message, audiences *audienceCache) ([]transcript.Message, error) {
	return scanRowsUpTo(rows, msgs, audiences, 0, nil)
}

// scanRowsUpTo is scanMessages that, when maxBytes > 0, stops once the content of the rows
// it appended, but the last, reaches maxBytes, and that, when lead is not nil, passes a row
// whose seq is 0 (which no message has: a statement's row of another kind in the
// messages' columns, pageDigestSQL's) to lead rather than appending it.
func scanRowsUpTo(rows pgx.Rows, msgs []transcript.Message, audiences *audienceCache, maxBytes int, lead func(transcript.Message)) ([]transcript.Message, error) {
	defer rows.Close()
	binaryFormat := binaryColumns(rows.FieldDescriptions())
	start, entries := len(msgs), 0
	before := 0 // the content of the rows appended, but the last
	for rows.Next() {
		if maxBytes > 0 && before >= maxBytes {
			break
		}
		var (
			m   transcript.Message
			err error
		)
		if binaryFormat {
			m, err = decodeRow(rows.RawValues(), audiences)
		} else {
			m, err = scanRow(rows, audiences)
		}
		if err != nil {
			return nil, err
		}
		if m.Seq == 0 && lead != nil {
			lead(m)
			continue
		}
		if len(msgs) > start {
			before += len(msgs[len(msgs)-1].Content)
		}
		entries += len(m.Audience)
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if entries > 0 {
		detachAudiences(msgs[start:], entries)
	}
	return msgs, nil
}

// scanPage is scanMessages for a page read (readBeforeSQL): it stops reading rows once
// the content of those before the last one it read reaches transcript.PageBytes, so that
// it holds the rows of a page that ends early there (pageEnd) and the one after, which
// shows that older rows exist, and never the rest, which closing rows discards.
func scanPage(rows pgx.Rows, msgs []transcript.Message, audiences *audienceCache) ([]transcript.Message, error) {
	return scanRowsUpTo(rows, msgs, audiences, transcript.PageBytes, nil)
}

// messageColumnList names the columns of transcript_messages that scanMessages reads, in
// order: what every query that returns rows selects.
const messageColumnList = `seq, parent, author_kind, author_id, author_label, content, at, audience, key, corrects, redacted, revised`

// messageColumns are the types of the columns scanMessages reads, in order.
var messageColumns = []uint32{
	pgtype.Int8OID, pgtype.Int8OID, pgtype.Int2OID, pgtype.TextOID, pgtype.TextOID, pgtype.TextOID, pgtype.TimestamptzOID,
	pgtype.TextOID, pgtype.TextOID, pgtype.Int8OID, pgtype.BoolOID, pgtype.Int8OID,
}

// The positions among messageColumns of the columns that may be NULL: all from the
// audience on.
const (
	audienceColumn = 7
	keyColumn      = 8
	correctsColumn = 9
	redactedColumn = 10
	revisedColumn  = 11
)

// binaryColumns reports whether fds are messageColumns, the numbers and the timestamp in
// binary format (text reads the same in either format).
func binaryColumns(fds []pgconn.FieldDescription) bool {
	if len(fds) != len(messageColumns) {
		return false
	}
	for i, fd := range fds {
		if fd.DataTypeOID != messageColumns[i] || (fd.DataTypeOID != pgtype.TextOID && fd.Format != pgtype.BinaryFormatCode) {
			return false
		}
	}
	return true
}

// postgresEpoch is where PostgreSQL's binary timestamps count microseconds from, in
// microseconds since the Unix epoch.
var postgresEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()

var errColumn = errors.New("pgstore: unexpected column value")

// decodeRow decodes one row in binary format. The Audience of an aside is audiences'
// shared slice: the caller detaches it.
func decodeRow(vals [][]byte, audiences *audienceCache) (transcript.Message, error) {
	if len(vals) != len(messageColumns) {
		return transcript.Message{}, fmt.Errorf("%w: %d columns, want %d", errColumn, len(vals), len(messageColumns))
	}
	for i, v := range vals {
		if want := columnSize(messageColumns[i]); (v == nil && i < audienceColumn) || (v != nil && want > 0 && len(v) != want) {
			return transcript.Message{}, fmt.Errorf("%w: column %d holds %d bytes", errColumn, i, len(v))
		}
	}
	be := binary.BigEndian
	m := transcript.Message{
		Seq:    transcript.Sequence(be.Uint64(vals[0])),
		Parent: transcript.Sequence(be.Uint64(vals[1])),
		Author: transcript.Author{
			Kind:  transcript.AuthorKind(be.Uint16(vals[2])),
			ID:    string(vals[3]),
			Label: string(vals[4]),
		},
		Content: string(vals[5]),
		At:      time.UnixMicro(postgresEpoch + int64(be.Uint64(vals[6]))).UTC(),
		Key:     string(vals[keyColumn]), // "" for NULL, without an allocation
	}
	if v := vals[correctsColumn]; v != nil {
		m.Corrects = transcript.Sequence(be.Uint64(v))
	}
	if v := vals[redactedColumn]; v != nil {
		m.Redacted = v[0] != 0
	}
	if v := vals[revisedColumn]; v != nil {
		m.Revised = transcript.Sequence(be.Uint64(v))
	}
	if v := vals[audienceColumn]; v != nil {
		audience, err := audiences.decode(v)
		if err != nil {
			return transcript.Message{}, fmt.Errorf("%w: the audience of row %d: %v", errColumn, m.Seq, err)
		}
		m.Audience = audience
	}
	return m, nil
}

// columnSize is the binary size of a column of type oid, 0 when it varies.
func columnSize(oid uint32) int {
	switch oid {
	case pgtype.Int8OID, pgtype.TimestamptzOID:
		return 8
	case pgtype.Int2OID:
		return 2
	case pgtype.BoolOID:
		return 1
	}
	return 0
}

// scanRow reads the current row with Scan, whatever its format. The Audience of an aside is
// audiences' shared slice, as in decodeRow.
func scanRow(rows pgx.Rows, audiences *audienceCache) (transcript.Message, error) {
	var (
		seq, parent int64
		kind        int16
		m           transcript.Message
		at          time.Time
		audience    []byte  // nil for NULL
		key         *string // nil for NULL, as the three below
		corrects    *int64
		redacted    *bool
		revised     *int64
	)
	if err := rows.Scan(&seq, &parent, &kind, &m.Author.ID, &m.Author.Label, &m.Content, &at, &audience, &key, &corrects, &redacted, &revised); err != nil {
		return transcript.Message{}, err
	}
	if key != nil {
		m.Key = *key
	}
	if corrects != nil {
		m.Corrects = transcript.Sequence(*corrects)
	}
	if redacted != nil {
		m.Redacted = *redacted
	}
	if revised != nil {
		m.Revised = transcript.Sequence(*revised)
	}
	m.Seq, m.Parent, m.Author.Kind, m.At = transcript.Sequence(seq), transcript.Sequence(parent), transcript.AuthorKind(kind), at.UTC()
	if audience != nil {
		a, err := audiences.decode(audience)
		if err != nil {
			return transcript.Message{}, fmt.Errorf("%w: the audience of row %d: %v", errColumn, m.Seq, err)
		}
		m.Audience = a
	}
	return m, nil
}
