package importer

import (
	"bufio"
	"io"
	"strconv"

	"github.com/sharedesk/transcript"
)

// A Source is what an import reads: JSONLines, Slack, Discord, or a host's own format. A
// host implements it by reading its messages and handing them to NewRows.
type Source interface {
	// ReadRows reads every message of the source, whole, and returns them as Rows in the
	// order they are to be stored, each parent and each correction's target before the
	// rows that name it. A message bad for what it holds alone is best kept as a row
	// (NewRows does so) so that Rows.Store reports it with the rest; the error is the
	// source's own, such as a file that cannot be read, and Rows are then nil. When p is
	// not nil, ReadRows tells it how the reading goes (Progress), from the goroutine that
	// called ReadRows. An import calls ReadRows once; a Source need not be read twice.
	ReadRows(p Progress) (*Rows, error)
	// Size returns how many bytes ReadRows reads, when that is known before it does, else
	// 0. ImportInto reads the desk while the source is read when Size is above 0.
	Size() int64
}

// Row is one message of a host's Source, as NewRows takes it: what to store, how it names
// its parent and its target, and where it is in the source.
type Row struct {
	// Message is what to store: its Author, Content, At, Audience and Key as the source
	// gives them (and Revised and Redacted, for the rows of an export). Its Seq, Parent and
	// Corrects are not read: the fields below give them.
	Message transcript.Message
	// ParentKey, when not empty, names the parent by key: an earlier row of the import, or
	// a row the desk holds. ParentSeq, when not 0, names it by sequence: a row the desk
	// holds, or an earlier row of the import with that Seq.
	ParentKey string
	ParentSeq transcript.Sequence
	// CorrectsKey and CorrectsSeq name, on a correction, its target as ParentKey and
	// ParentSeq name a parent.
	CorrectsKey string
	CorrectsSeq transcript.Sequence
	// Seq, when not 0, is the sequence the source says the row has: a row the desk holds
	// must be that row, and a new row must be stored there.
	Seq transcript.Sequence
	// Where names the row in an error message ("record 12"; "message 12", its place
	// counted from 1, when empty). It must never quote content.
	Where string
}

// NewRows returns rows as the Rows of an import, for a host's Source. Each row is checked
// alone, as a JSON Lines line is: a row no store keeps (transcript.Message.ValidateNew
// refuses it) stays a row, Faulty, so that Rows.Store reports it with whatever else is
// wrong, naming it by its Where. NewRows keeps no reference to rows.
func NewRows(rows []Row) *Rows {
	prep := &importPrep{}
	out := make([]importRow, len(rows))
	for i, r := range rows {
		row := importRow{
			Message:     r.Message,
			ParentKey:   r.ParentKey,
			ParentSeq:   r.ParentSeq,
			CorrectsKey: r.CorrectsKey,
			CorrectsSeq: r.CorrectsSeq,
			Seq:         r.Seq,
			Where:       r.Where,
		}
		row.Message.Seq, row.Message.Parent, row.Message.Corrects = 0, 0, 0
		if row.Where == "" {
			row.Where = "message " + strconv.Itoa(i+1)
		}
		if problem := storeProblem(row.probe(), lineWording); problem != "" {
			prep.bad.add(i, row.Where, "%s", problem)
			if prep.faulty == nil {
				prep.faulty = make(map[int]bool)
			}
			prep.faulty[i] = true
			row = importRow{Message: transcript.Message{Key: row.Message.Key}, Seq: row.Seq, Where: row.Where}
		}
		out[i] = row
	}
	return &Rows{rows: out, prep: prep}
}

// JSONLines is the source of one message a line (the format export writes; see the
// package doc), read from r, of size bytes when known, else 0: the size lets the reader
// make room for every line at once. A byte-order mark at the start is skipped.
func JSONLines(r io.Reader, size int64) Source { return jsonLines{r: r, bytes: size} }

type jsonLines struct {
	r       io.Reader
	bytes   int64
	bomSeen bool // r's start was looked at, and a byte-order mark skipped
}

// Size implements Source.
func (s jsonLines) Size() int64 { return s.bytes }

// ReadRows implements Source.
func (s jsonLines) ReadRows(p Progress) (*Rows, error) {
	r := s.r
	if !s.bomSeen {
		br, ok := r.(*bufio.Reader)
		if !ok {
			br = bufio.NewReader(r)
		}
		skipBOM(br)
		r = br
	}
	if p != nil {
		p.Begin("reading", s.bytes)
		defer p.End()
		r = &countingReader{r: r, p: p}
	}
	rows, prep, err := readJSONLines(r, s.bytes)
	if err != nil {
		return nil, err
	}
	return &Rows{rows: rows, prep: prep}, nil
}

// Slack is the source of one channel of a Slack workspace export: path is the folder the
// export unpacks to or its .zip, channel its name (with or without "#") or its id.
func Slack(path, channel string) Source { return slackSource{path, channel} }

type slackSource struct{ path, channel string }

// Size implements Source: 0, unknown.
func (slackSource) Size() int64 { return 0 }

// ReadRows implements Source.
func (s slackSource) ReadRows(Progress) (*Rows, error) {
	rows, chat, err := readSlackExport(s.path, s.channel)
	if err != nil {
		return nil, err
	}
	return &Rows{rows: rows, prep: &importPrep{chat: chat}}, nil
}

// Discord is the source of a DiscordChatExporter JSON export of one channel: path is the
// file, or a folder or .zip holding it and its threads' files.
func Discord(path string) Source { return discordSource(path) }

type discordSource string

// Size implements Source: 0, unknown.
func (discordSource) Size() int64 { return 0 }

// ReadRows implements Source.
func (s discordSource) ReadRows(Progress) (*Rows, error) {
	rows, chat, err := readDiscordExport(string(s))
	if err != nil {
		return nil, err
	}
	return &Rows{rows: rows, prep: &importPrep{chat: chat}}, nil
}
