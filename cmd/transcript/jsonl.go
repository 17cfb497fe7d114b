package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
)

// line is one message of the JSON Lines format import reads and export writes:
//
//	{"id":"1","author":{"type":"person","id":"ana","label":"Ana"},"content":"hi","at":"2026-11-30T09:00:00Z"}
//	{"id":"2","author":{"type":"agent","id":"triage"},"content":"hello","parent":"1"}
//
// id names the line for later lines' parent (a string or a number; optional when nothing
// replies to it); parent names an earlier line's id; at is optional. export writes each row's
// seq as its id.
type line struct {
	ID      lineID      `json:"id,omitempty"`
	Author  *lineAuthor `json:"author"`
	Content *string     `json:"content"`
	Parent  lineID      `json:"parent,omitempty"`
	At      time.Time   `json:"at,omitzero"`
}

// lineAuthor is transcript.Author's JSON form as a plain struct, so that the line decoder's
// check for unknown fields reaches inside it, and one pass decodes a whole line.
type lineAuthor struct {
	Type  string `json:"type"`
	ID    string `json:"id,omitempty"`
	Kind  string `json:"kind,omitempty"`
	Label string `json:"label,omitempty"`
}

// author returns the Author a names, or what is wrong with it.
func (a lineAuthor) author() (transcript.Author, error) {
	kind, err := transcript.ParseAuthorKind(a.Type)
	if err != nil {
		return transcript.Author{}, err
	}
	id, wrongKey, wrongValue := a.ID, "kind", a.Kind
	if kind == transcript.KindSystem {
		id, wrongKey, wrongValue = a.Kind, "id", a.ID
	}
	if wrongValue != "" {
		return transcript.Author{}, fmt.Errorf("%w: %s with a %q key", transcript.ErrInvalidAuthor, kind, wrongKey)
	}
	author := transcript.Author{Kind: kind, ID: id, Label: a.Label}
	return author, author.Validate()
}

func toLineAuthor(a transcript.Author) *lineAuthor {
	l := &lineAuthor{Type: a.Kind.String(), ID: a.ID, Label: a.Label}
	if a.Kind == transcript.KindSystem {
		l.ID, l.Kind = "", a.ID
	}
	return l
}

// lineID is a line's id: a JSON string or integer, kept as text.
type lineID string

func (id *lineID) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*id = lineID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(data, &n); err != nil {
		return errors.New("an id is a string or a number")
	}
	if _, err := strconv.ParseUint(n.String(), 10, 64); err != nil {
		return fmt.Errorf("id %s is not a whole number", n)
	}
	*id = lineID(n.String())
	return nil
}

// decodeLine decodes one line's bytes into a message and the line's id and parent id.
// Unknown fields (in the author too), an invalid or missing author, a missing content,
// trailing data and invalid UTF-8 are errors.
func decodeLine(data []byte) (line, transcript.Message, error) {
	l, err := decodeLineJSON(data)
	if err != nil {
		return line{}, transcript.Message{}, err
	}
	author, err := l.Author.author()
	if err != nil {
		return line{}, transcript.Message{}, err
	}
	return l, transcript.Message{Author: author, Content: *l.Content, At: l.At}, nil
}

func decodeLineJSON(data []byte) (line, error) {
	if !utf8.Valid(data) {
		return line{}, errors.New("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l line
	if err := dec.Decode(&l); err != nil {
		return line{}, cleanJSONError(err)
	}
	if dec.More() {
		return line{}, errors.New("more than one JSON value on the line")
	}
	switch {
	case l.Author == nil:
		return line{}, errors.New(`missing "author"`)
	case l.Content == nil:
		return line{}, errors.New(`missing "content"`)
	}
	return l, nil
}

// cleanJSONError says what encoding/json found wrong without its "json: " prefix.
func cleanJSONError(err error) error {
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax):
		return fmt.Errorf("invalid JSON at byte %d: %s", syntax.Offset, strings.TrimPrefix(err.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("invalid JSON: the line ends inside a value")
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

// encodeLine returns m as a line, its seq as its id.
func encodeLine(m transcript.Message) ([]byte, error) {
	content := m.Content
	l := line{ID: lineID(strconv.FormatUint(uint64(m.Seq), 10)), Author: toLineAuthor(m.Author), Content: &content, At: m.At}
	if m.Parent != 0 {
		l.Parent = lineID(strconv.FormatUint(uint64(m.Parent), 10))
	}
	return json.Marshal(l)
}
