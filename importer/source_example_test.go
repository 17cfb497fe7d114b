package importer_test

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/importer"
	"github.com/sharedesk/transcript/sqlitestore"
)

// csvSource is a host's own format: a CSV record a message, "key,parent key,person,text".
type csvSource struct{ r io.Reader }

// Size is 0: how many bytes the records take is not known before they are read.
func (csvSource) Size() int64 { return 0 }

// ReadRows reads every record; a record that is no message still becomes a row, so that
// the import reports it with the rest.
func (s csvSource) ReadRows(p importer.Progress) (*importer.Rows, error) {
	if p != nil {
		p.Begin("reading", 0)
		defer p.End()
	}
	cr := csv.NewReader(s.r)
	cr.FieldsPerRecord = 4
	var rows []importer.Row
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return importer.NewRows(rows), nil
		}
		if err != nil {
			return nil, fmt.Errorf("csv: %w", err)
		}
		rows = append(rows, importer.Row{
			Message:   transcript.Message{Key: rec[0], Author: transcript.Person(rec[2], ""), Content: rec[3]},
			ParentKey: rec[1],
			Where:     fmt.Sprintf("record %d", n),
		})
	}
}

// A host imports its own format by implementing Source: the import checks its rows, and
// stores each once, as it does a JSON Lines file's.
func ExampleSource() {
	dir, err := os.MkdirTemp("", "importer-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "desk.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	const records = "m1,,ana,Is the release branch cut?\nm2,m1,bo,Cut at 12:10.\n"
	for range 2 {
		n, err := importer.Import(ctx, st, "main", csvSource{strings.NewReader(records)})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d new, %d already present\n", n.Added, n.Present)
	}
	_, err = importer.Import(ctx, st, "main", csvSource{strings.NewReader("m3,m9,ana,hi\nm4,,ana,a\x00b\n")})
	fmt.Println(err)
	// Output:
	// 2 new, 0 already present
	// 0 new, 2 already present
	// 2 bad messages, nothing was imported:
	//   record 1: parent "m9" names no earlier message of this import and no row of desk "main"
	//   record 2: content holds a NUL byte at offset 1, which the stores refuse (PostgreSQL text cannot store one)
}
