package importer_test

import (
	"errors"
	"testing"

	"github.com/sharedesk/transcript/importer"
)

// nilSource is a broken host Source: no rows and no error.
type nilSource struct{}

func (nilSource) Size() int64                                        { return 0 }
func (nilSource) ReadRows(importer.Progress) (*importer.Rows, error) { return nil, nil }

// TestReadRefusesNoRows: a Source that returns neither rows nor an error is an error, not
// a panic in Rows.Store.
func TestReadRefusesNoRows(t *testing.T) {
	if rows, err := importer.Read(nilSource{}); err == nil {
		t.Errorf("Read of a source without rows = %v, nil; want an error", rows)
	}
}

// TestNewRowsWhere: a row without a Where is named by its place, counted from 1.
func TestNewRowsWhere(t *testing.T) {
	rows := importer.NewRows([]importer.Row{{}, {}})
	if !rows.Faulty() || rows.Len() != 2 {
		t.Fatalf("NewRows of two empty rows: Faulty %v, Len %d; want faulty, 2", rows.Faulty(), rows.Len())
	}
	var rerr *importer.RowsError
	if err := rows.Err(); !errors.As(err, &rerr) || len(rerr.Problems) != 2 || rerr.Problems[1].Where != "message 2" {
		t.Errorf("Err = %v; want two problems, the second at message 2", err)
	}
}
