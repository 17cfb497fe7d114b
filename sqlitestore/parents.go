package sqlitestore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sharedesk/transcript"
)

// parentsSQL reads the stored rows that new rows reply to or correct, as the reply rule and
// the correction rule need them: their authors, audiences and corrections' columns, and the
// content of the targets (?3; a parent's is not read, the reply rule needs none). Each is a
// point lookup on the (desk, seq) index, then on the authors' and audiences' primary keys;
// the outer joins let a row naming a missing author or audience come back, to be reported,
// rather than be left out.
const parentsSQL = `
SELECT m.seq, m.author, ifnull(a.kind, 0), ifnull(a.ident, ''), ifnull(a.label, ''),
       ifnull(m.audience, 0), ifnull(u.members, ''),
       m.corrects, m.redacted, m.revised,
       CASE WHEN m.seq IN (SELECT value FROM json_each(?3)) THEN m.content ELSE '' END
FROM messages AS m
LEFT JOIN authors AS a ON a.id = m.author
LEFT JOIN audiences AS u ON u.id = m.audience
WHERE m.desk = ?1 AND m.seq IN (SELECT value FROM json_each(?2))`

// storedParents returns the rows seqs of the desk, all stored before the transaction began,
// with their Seq, Author, Audience, Corrects, Redacted and Revised, and for those in
// targets their Content: the parents transcript.Message.ResolveAudience needs and the
// targets transcript.Message.ResolveCorrection needs. A row it cannot find, or one naming
// an author or audience the file does not hold, is an error: the file was changed outside
// this package. An Audience it returns may be the cache's: the caller must not modify it
// (neither rule does). No error holds a row's content.
func (w *writeTx) storedParents(ctx context.Context, seqs, targets []int64) (map[transcript.Sequence]transcript.Message, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(seqs)
	if err != nil {
		return nil, err
	}
	targetList := []byte("[]")
	if len(targets) > 0 {
		if targetList, err = json.Marshal(targets); err != nil {
			return nil, err
		}
	}
	rows, err := w.tx.StmtContext(ctx, w.s.parents).QueryContext(ctx, w.desk, string(list), string(targetList))
	if err != nil {
		return nil, fmt.Errorf("reading parent rows: %w", err)
	}
	defer rows.Close()
	parents := make(map[transcript.Sequence]transcript.Message, len(seqs))
	for rows.Next() {
		var (
			seq, author, kind, audience, corrects, revised int64
			m                                              transcript.Message
			members                                        string
		)
		if err := rows.Scan(&seq, &author, &kind, &m.Author.ID, &m.Author.Label, &audience, &members, &corrects, &m.Redacted, &revised, &m.Content); err != nil {
			return nil, fmt.Errorf("reading parent rows: %w", err)
		}
		m.Seq, m.Author.Kind = transcript.Sequence(seq), transcript.AuthorKind(kind)
		m.Corrects, m.Revised = transcript.Sequence(corrects), transcript.Sequence(revised)
		if kind == 0 {
			return nil, fmt.Errorf("row %d names author %d, which the authors table does not hold", seq, author)
		}
		if audience != 0 {
			if m.Audience, err = w.s.storedAudience(audience, members); err != nil {
				return nil, fmt.Errorf("row %d: %w", seq, err)
			}
		}
		parents[m.Seq] = m
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading parent rows: %w", err)
	}
	for _, seq := range seqs {
		if _, ok := parents[transcript.Sequence(seq)]; !ok {
			return nil, fmt.Errorf("row %d is not in the desk, although rows up to %d are", seq, w.head)
		}
	}
	return parents, nil
}

// storedAudience returns the audience of the committed audiences row id, whose members are
// members ("" when the row is missing), from the cache or by decoding members, which it
// then caches. The caller must not modify what it returns.
func (s *Store) storedAudience(id int64, members string) ([]transcript.Author, error) {
	if a, ok := s.audiences.get(id); ok {
		return a, nil
	}
	if members == "" {
		return nil, fmt.Errorf("audience %d is not in the audiences table", id)
	}
	a, err := decodeMembers(members)
	if err != nil {
		return nil, fmt.Errorf("audience %d: %w", id, err)
	}
	s.audiences.add(id, members, a)
	return a, nil
}
