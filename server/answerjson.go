package server

import (
	"bytes"
	stdjson "encoding/json"
	"io"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/sharedesk/transcript"
)

// answerOptions encode an answer as encoding/json does with SetEscapeHTML(false), huma's
// JSON: encoding/json's rules (jsonv1.DefaultOptionsV1) but for HTML, and
// transcript.Author in its wire form (writeAuthor).
var answerOptions = json.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsontext.EscapeForHTML(false),
	json.WithMarshalers(json.MarshalToFunc(writeAuthor)),
)

// answerBuffers hold answers while they are encoded.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledAnswer is the largest buffer put back in answerBuffers: a large answer's room
// goes back to the heap.
const maxPooledAnswer = 256 << 10

// marshalAnswer writes v and a newline to w, in one Write, byte for byte as encoding/json's
// Encoder with SetEscapeHTML(false) writes them, and nothing when v cannot be encoded. An
// answer that holds U+FFFD is written by encoding/json itself: the other encoding writes
// text that is not valid UTF-8 (which no store holds) otherwise.
func marshalAnswer(w io.Writer, v any) error {
	buf := answerBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledAnswer {
			buf.Reset()
			answerBuffers.Put(buf)
		}
	}()
	if err := json.MarshalWrite(buf, v, answerOptions); err != nil {
		return err
	}
	if bytes.Contains(buf.Bytes(), replacement) {
		// Text that was not valid UTF-8, perhaps, which encoding/json writes as \ufffd where
		// this writes the character: encoding/json writes the answer.
		buf.Reset()
		enc := stdjson.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		return writeAnswer(w, buf, enc.Encode(v))
	}
	buf.WriteByte('\n')
	return writeAnswer(w, buf, nil)
}

// replacement is U+FFFD in UTF-8.
var replacement = []byte("\uFFFD")

// writeAnswer writes buf to w unless err, the encoding's error, is not nil.
func writeAnswer(w io.Writer, buf *bytes.Buffer, err error) error {
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// writeAuthor writes a as transcript.Author.MarshalJSON does, token by token rather than
// through MarshalJSON, whose bytes the encoder would read again: {"type":...}, then "id"
// (for a system, "kind") and "label" when not empty. An invalid author is Validate's error.
// An author with <, > or & in its ID or label is written with MarshalJSON's bytes, which
// escape them as json.Marshal does.
func writeAuthor(enc *jsontext.Encoder, a transcript.Author) error {
	if strings.ContainsAny(a.ID, "<>&") || strings.ContainsAny(a.Label, "<>&") {
		// MarshalJSON escapes these (json.Marshal), and encoding/json keeps its bytes.
		b, err := a.MarshalJSON()
		if err != nil {
			return err
		}
		return enc.WriteValue(b)
	}
	if err := a.Validate(); err != nil {
		return err
	}
	key := "id"
	if a.Kind == transcript.KindSystem {
		key = "kind"
	}
	toks := append(make([]jsontext.Token, 0, 7), jsontext.BeginObject, jsontext.String("type"), jsontext.String(a.Kind.String()))
	if a.ID != "" {
		toks = append(toks, jsontext.String(key), jsontext.String(a.ID))
	}
	if a.Label != "" {
		toks = append(toks, jsontext.String("label"), jsontext.String(a.Label))
	}
	for _, tok := range append(toks, jsontext.EndObject) {
		if err := enc.WriteToken(tok); err != nil {
			return err
		}
	}
	return nil
}
