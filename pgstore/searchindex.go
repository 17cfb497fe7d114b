package pgstore

import (
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
)

// insertTermsSQL inserts, in the same transaction and after insertSQL, the terms of the $2
// rows insertSQL inserted: $3 holds each row's terms joined by spaces (indexTerms), ""
// for a row no search finds, which gets none. The rows are numbered as insertSQL numbers
// them, from the desk's head, which the transaction holds.
const insertTermsSQL = `
INSERT INTO transcript_terms (desk, seq, terms)
SELECT $1, d.head - $2 + r.ord, string_to_array(r.terms, ' ')
FROM transcript_desks d, unnest($3::text[]) WITH ORDINALITY AS r(terms, ord)
WHERE d.name = $1 AND r.terms <> ''`

// replaceTermsSQL sets the terms of row $2 of desk $1 to $3, an edit's (indexTerms of its
// new content, not empty), in the transaction that applies the edit.
const replaceTermsSQL = `
INSERT INTO transcript_terms (desk, seq, terms) VALUES ($1, $2, string_to_array($3, ' '))
ON CONFLICT (desk, seq) DO UPDATE SET terms = excluded.terms`

// deleteTermsSQL removes the terms of row $2 of desk $1, which a correction left with no
// word a search finds (a redaction, an edit to blank content). A full-key equality on the
// primary key: one probe.
const deleteTermsSQL = `DELETE FROM transcript_terms WHERE desk = $1 AND seq = $2`

// indexTerms returns a row's terms as the statements above take them:
// transcript.IndexTerms(m) joined by spaces, which no term holds; "" for none.
func indexTerms(m *transcript.Message) string {
	return strings.Join(transcript.IndexTerms(m), " ")
}

// rowTerms returns indexTerms of each of rows, and whether any has terms.
func rowTerms(rows []transcript.Message) ([]string, bool) {
	terms, found := make([]string, len(rows)), false
	for i := range rows {
		terms[i] = indexTerms(&rows[i])
		found = found || terms[i] != ""
	}
	return terms, found
}

// queueTerms queues on b, right after the insertSQL of rows to desk, the insert of their
// terms, unless none has any or noTerms (a test's knob). It returns how many results it
// queued: 0 or 1.
func queueTerms(b *pgx.Batch, desk string, rows []transcript.Message, noTerms bool) int {
	terms, found := rowTerms(rows)
	if !found || noTerms {
		return 0
	}
	b.Queue(insertTermsSQL, desk, int64(len(rows)), terms)
	return 1
}

// queueRevisedTerms queues on b the change of the terms of r's target: its edit's words,
// or none.
func queueRevisedTerms(b *pgx.Batch, desk string, r *transcript.Revision) {
	terms := indexTerms(&transcript.Message{Content: r.Content, Redacted: r.Redacted})
	if terms == "" {
		b.Queue(deleteTermsSQL, desk, int64(r.Target))
		return
	}
	b.Queue(replaceTermsSQL, desk, int64(r.Target), terms)
}
