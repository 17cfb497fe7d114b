package importer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/authorjson"
	"github.com/sharedesk/transcript/internal/quotable"
)

// line is one message of the JSON Lines format import reads and export writes:
//
//	{"id":"1","author":{"type":"person","id":"ana","label":"Ana"},"content":"hi","at":"2026-11-30T09:00:00Z"}
//	{"id":"2","author":{"type":"agent","id":"triage"},"content":"hello","parent":"1"}
//
//	{"id":"3","author":{"type":"operator"},"content":"between us","audience":[{"type":"agent","id":"triage"}]}
//	{"seq":4,"author":{"type":"agent","id":"triage"},"content":"noted","parent_seq":3}
//
// id, a string or a number, is the row's key (transcript.Message.Key): it names the line for
// later lines' parent, and it makes the import idempotent, as a line whose key the desk
// holds already is that row (see storeRows); optional. parent names the line's parent by key:
// an earlier line's id, or a key the desk holds. seq, a number, is the sequence the row has:
// a row the desk holds must be that row, a new one must be stored there. parent_seq names the
// parent by sequence: a row of the desk, or an earlier line with that seq; a line names its
// parent once, by parent or by parent_seq. at is optional; audience, in the author's form,
// makes the line an aside for those participants (absent, null or empty: a row the whole
// desk reads). export writes each row's seq, its key as id when it has one, its parent as
// parent_seq and audience only for an aside, so that an export imports into an empty desk as
// the same rows and into its own desk as nothing new.
//
//	{"id":"4","author":{"type":"person","id":"ana","label":"Ana"},"content":"hi all","corrects":"1"}
//	{"author":{"type":"operator"},"content":"","corrects_seq":2,"redacted":true}
//
// A correction names the row it corrects (its target) by corrects, a key, or corrects_seq,
// a sequence, as a reply names its parent, and has no parent: an edit gives the target's new
// content, a redaction ("redacted":true, empty content) erases it. export writes a
// correction's target as corrects_seq, and what the log set on each row: revised, the
// newest correction applied to it, and redacted on an erased row. A file that carries them
// is an export, whose rows are restored as they were stored (see restoredRow).
type line struct {
	Seq       lineSeq      `json:"seq,omitzero"`
	ID        lineID       `json:"id,omitempty"`
	Author    *lineAuthor  `json:"author"`
	Content   *string      `json:"content"`
	Parent    lineID       `json:"parent,omitempty"`
	ParentSeq lineSeq      `json:"parent_seq,omitzero"`
	At        time.Time    `json:"at,omitzero"`
	Audience  []lineAuthor `json:"audience,omitempty"`
	// A correction names its target as a reply names its parent, once, and replies to
	// nothing; redacted and revised are as transcript.Message holds them.
	Corrects    lineID  `json:"corrects,omitempty"`
	CorrectsSeq lineSeq `json:"corrects_seq,omitzero"`
	Redacted    bool    `json:"redacted,omitzero"`
	Revised     lineSeq `json:"revised,omitzero"`
}

// lineAuthor is transcript.Author's JSON form as a plain struct, so that the line decoder's
// check for unknown fields reaches inside it, and one pass decodes a whole line.
type lineAuthor authorjson.Form

// author returns the Author a names, or what is wrong with it.
func (a lineAuthor) author() (transcript.Author, error) {
	var kind transcript.AuthorKind
	if err := kind.UnmarshalText([]byte(a.Type)); err != nil {
		return transcript.Author{}, err
	}
	id, refused := authorjson.Form(a).AuthorID(kind == transcript.KindSystem)
	if refused != "" {
		return transcript.Author{}, &transcript.InvalidError{Kind: transcript.ErrInvalidAuthor, Reason: refused}
	}
	author := transcript.Author{Kind: kind, ID: id, Label: a.Label}
	return author, author.Validate()
}

func toLineAuthor(a transcript.Author) lineAuthor {
	return lineAuthor(authorjson.Make(a.Kind.String(), a.Kind == transcript.KindSystem, a.ID, a.Label))
}

// audience returns the Audience the line's audience entries name, or what is wrong with the
// first bad entry, named by its JSON pointer ("/audience/1"). An audience that lists the
// author, an identity twice or more than transcript.MaxAudience entries is refused as
// transcript.Message.ValidateNew refuses it, so that import reports it with the line's
// other faults. Lines without an audience cost nothing here.
func (l *line) audience(author transcript.Author) ([]transcript.Author, error) {
	if len(l.Audience) == 0 {
		return nil, nil
	}
	out := make([]transcript.Author, len(l.Audience))
	for i, entry := range l.Audience {
		a, err := entry.author()
		if err != nil {
			return nil, fmt.Errorf(`"/audience/%d": %w`, i, err)
		}
		out[i] = a
	}
	if err := (transcript.Message{Author: author, Audience: out}).ValidateNew(); err != nil {
		return nil, err // its reason names the audience
	}
	return out, nil
}

// lineID is a line's id: a JSON string or integer, kept as text.
type lineID string

// UnmarshalJSONFrom reads a string, or a whole number kept as its digits; null is no id.
func (id *lineID) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		*id = ""
		return nil
	case '"':
		*id = lineID(tok.String())
		return nil
	case '0':
		n := tok.String() // the number's text as it appears on the line
		if _, err := strconv.ParseUint(n, 10, 64); err != nil {
			return fmt.Errorf("id %s is not a whole number", n)
		}
		*id = lineID(n)
		return nil
	}
	return errors.New("an id is a string or a number")
}

// lineSeq is a line's seq or parent_seq: a whole number from 1, or 0 when absent.
type lineSeq transcript.Sequence

// UnmarshalJSONFrom reads a whole number from 1 up to the largest sequence a store keeps
// (2^63-1); null is no sequence.
func (s *lineSeq) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		*s = 0
		return nil
	case '0':
		n := tok.String()
		v, err := strconv.ParseUint(n, 10, 63)
		if err != nil || v == 0 {
			return fmt.Errorf("%s is not a sequence (a whole number from 1)", n)
		}
		*s = lineSeq(v)
		return nil
	}
	return errors.New("a sequence is a number")
}

// decodeLine decodes one line's bytes into a message, its Key the line's id, and the line
// itself, for its seq and its parent. Unknown keys (in the author and audience entries too;
// keys match case-sensitively), a key given twice, an invalid or missing author, a missing
// content, an invalid audience (see line.audience), an id that cannot be a key (over
// transcript.MaxKeyLen bytes, or not printable), a parent named both by id and by seq,
// trailing data and invalid UTF-8 are errors. A line that is JSON of the line's shape but
// bad otherwise is still returned, with a message holding only its Key when its id can be
// one, so that the import knows the row that later lines name and its seq.
//
// Lines are read and written with github.com/go-json-experiment/json, the module that
// mirrors encoding/json/v2: one pass a line with unknown keys refused, where encoding/json
// needs a new Decoder for each line to refuse them (BENCHMARKS.md, Command-line tool).
func decodeLine(data []byte) (line, transcript.Message, error) {
	l, err := decodeLineJSON(data)
	if err != nil {
		return line{}, transcript.Message{}, err
	}
	key := transcript.Message{Key: string(l.ID)}
	if key.Key != "" {
		// The key rules are transcript.Message.ValidateNew's, checked first so that a line
		// bad otherwise keeps its key; the operator is a valid author for them.
		if err := (transcript.Message{Author: transcript.Operator(), Key: key.Key}).ValidateNew(); err != nil {
			return l, transcript.Message{}, fmt.Errorf(`"/id": %w`, err)
		}
	}
	author, err := l.Author.author()
	if err != nil {
		return l, key, err
	}
	audience, err := l.audience(author)
	if err != nil {
		return l, key, err
	}
	if err := l.checkRefs(); err != nil {
		return l, key, err
	}
	m := transcript.Message{Author: author, Content: *l.Content, At: l.At, Audience: audience, Key: key.Key,
		Redacted: l.Redacted, Revised: transcript.Sequence(l.Revised)}
	if l.namesTarget() && !m.Redacted && m.Blank() {
		// Said here, as the target may be named by a key: transcript.Message.ValidateNew
		// names it by seq.
		return l, key, errors.New("an edit without content (to erase a row, redact it)")
	}
	return l, m, nil
}

// checkRefs reports a line that names its parent, or its target, twice, or both.
func (l *line) checkRefs() error {
	switch {
	case l.Parent != "" && l.ParentSeq != 0:
		return errors.New(`"parent" and "parent_seq" both given: a line names its parent once`)
	case l.Corrects != "" && l.CorrectsSeq != 0:
		return errors.New(`"corrects" and "corrects_seq" both given: a line names its target once`)
	case l.namesTarget() && (l.Parent != "" || l.ParentSeq != 0):
		return errors.New(`a correction ("corrects") with a parent: a correction replies to nothing`)
	}
	return nil
}

// namesTarget reports whether the line is a correction.
func (l *line) namesTarget() bool { return l.Corrects != "" || l.CorrectsSeq != 0 }

func decodeLineJSON(data []byte) (line, error) {
	var l line
	if err := json.Unmarshal(data, &l, json.RejectUnknownMembers(true)); err != nil {
		return line{}, cleanJSONError(err)
	}
	switch {
	case l.Author == nil:
		return line{}, errors.New(`missing "author"`)
	case l.Content == nil:
		return line{}, errors.New(`missing "content"`)
	}
	return l, nil
}

// cleanJSONError says what the JSON decoder found wrong in the line format's terms: where,
// as a JSON pointer ("/author/type") or a byte offset, and what, without Go type names,
// never quoting a value (a time that is not one) or a key but a plain one (quotable.Name).
func cleanJSONError(err error) error {
	if serr, ok := errors.AsType[*json.SemanticError](err); ok {
		where, unknown := serr.JSONPointer, errors.Is(serr.Err, json.ErrUnknownName)
		member := ""
		if unknown {
			where, member = where.Parent(), where.LastToken()
		}
		prefix := ""
		if where != "" && where != "/" {
			prefix = fmt.Sprintf("%q: ", string(where))
		}
		var badTime *time.ParseError
		switch {
		case unknown && quotable.Name(member):
			return fmt.Errorf("%sunknown key %q", prefix, member)
		case unknown:
			return fmt.Errorf("%san unknown key (%s)", prefix, quotable.NotQuoted)
		case errors.As(serr.Err, &badTime):
			return fmt.Errorf("%snot an RFC 3339 time", prefix)
		case serr.Err != nil:
			if _, syntactic := errors.AsType[*jsontext.SyntacticError](serr.Err); !syntactic {
				return fmt.Errorf("%s%v", prefix, serr.Err)
			}
			err = serr.Err
		case serr.JSONKind != 0:
			return fmt.Errorf("%sunexpected JSON %s", prefix, kindName(serr.JSONKind))
		default:
			return fmt.Errorf("%sinvalid value", prefix)
		}
	}
	if serr, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		if errors.Is(serr.Err, io.ErrUnexpectedEOF) {
			return errors.New("invalid JSON: the line ends inside a value")
		}
		return fmt.Errorf("invalid JSON at column %d: %s", serr.ByteOffset+1, syntaxReason(serr.Err)) // columns count bytes from 1
	}
	return err
}

// kindName names a kind of JSON value.
func kindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return k.String()
}

// MarshalLine returns m as a line: its seq, its key as its id when it has one, its parent as
// parent_seq, its target as corrects_seq, an audience only when m is an aside, and redacted
// and revised when the log set them.
func MarshalLine(m transcript.Message) ([]byte, error) {
	content, author := m.Content, toLineAuthor(m.Author)
	l := line{Seq: lineSeq(m.Seq), ID: lineID(m.Key), Author: &author, Content: &content, ParentSeq: lineSeq(m.Parent), At: m.At,
		CorrectsSeq: lineSeq(m.Corrects), Redacted: m.Redacted, Revised: lineSeq(m.Revised)}
	if len(m.Audience) > 0 {
		l.Audience = make([]lineAuthor, len(m.Audience))
		for i, a := range m.Audience {
			l.Audience[i] = toLineAuthor(a)
		}
	}
	return json.Marshal(l, jsontext.EscapeForJS(true)) // U+2028 and U+2029 escaped: some tools split lines there
}

// UnmarshalLine decodes one line as Read does and returns the message it holds: its author,
// content, time, audience, its id as Key, and Redacted and Revised. Its seq, parent and
// target, which name rows of a desk or of the file, are left out. The error says what is wrong with the line, as Read's
// report does.
func UnmarshalLine(data []byte) (transcript.Message, error) {
	_, m, err := decodeLine(data)
	return m, err
}

// Export writes every row of log to w as JSON Lines, oldest first, one MarshalLine a line:
// the format Read reads, so that an export imports into an empty desk as the same rows and
// into its own desk as nothing new. Asides are written too, content and all. Every page
// read is checked (transcript.Pager); the error is the log's, or w's.
func Export(ctx context.Context, w io.Writer, log transcript.Log) error {
	p := transcript.NewPager(log, 0)
	var rows []transcript.Message
	for !p.Done() {
		page, err := p.Next(ctx, transcript.PageSize)
		if err != nil {
			return err
		}
		rows = append(rows, page...)
	}
	bw := bufio.NewWriter(w)
	for _, m := range slices.Backward(rows) {
		data, err := MarshalLine(m)
		if err != nil {
			return err
		}
		bw.Write(data)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
