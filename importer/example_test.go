package importer_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/sharedesk/transcript/importer"
	"github.com/sharedesk/transcript/sqlitestore"
)

// Importing the same lines twice adds them once.
func ExampleImport() {
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

	const lines = `{"id":"1","author":{"type":"person","id":"ana","label":"Ana"},"content":"hi"}
{"id":"2","author":{"type":"agent","id":"triage","label":"Triage"},"content":"hello","parent":"1"}
`
	for range 2 {
		n, err := importer.Import(ctx, st, "main", importer.JSONLines(strings.NewReader(lines), 0))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d new, %d already present\n", n.Added, n.Present)
	}
	// Output:
	// 2 new, 0 already present
	// 0 new, 2 already present
}
