package sqlitestore_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sqlitestore"
)

func Example() {
	dir, err := os.MkdirTemp("", "sqlitestore-example")
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

	root, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "deploy at noon?"})
	if err != nil {
		log.Fatal(err)
	}
	err = st.AppendBatch(ctx, "eng", []transcript.Message{
		{Parent: root.Seq, Author: transcript.Agent("triage", "Triage"), Content: "after the migration"},
		{Parent: transcript.BatchParent(0), Author: transcript.Person("ana", "Ana"), Content: "agreed"},
		{Author: transcript.System("workflow", "CI"), Content: "build 812 passed"},
	})
	if err != nil {
		log.Fatal(err)
	}

	proj, err := transcript.Project(ctx, st.Log("eng"), transcript.Query{})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range proj.Messages {
		fmt.Printf("%d (parent %d) %s: %s\n", m.Seq, m.Parent, m.Author, m.Content)
	}
	// Output:
	// 1 (parent 0) operator: deploy at noon?
	// 2 (parent 1) agent:triage: after the migration
	// 4 (parent 0) system:workflow: build 812 passed
}

func ExampleAppendError() {
	dir, err := os.MkdirTemp("", "sqlitestore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "desk.db"), sqlitestore.WithMaxContent(16))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	err = st.AppendBatch(ctx, "eng", []transcript.Message{
		{Author: transcript.Operator(), Content: "short"},
		{Author: transcript.Operator(), Content: "far too long for this desk"},
	})
	fmt.Println(err)
	// Output:
	// append batch to desk "eng": message 1: content of 26 bytes, over the limit of 16
}

// An import names its rows by key: importing the same lines again adds nothing, a file that
// extends an earlier one adds only its new lines, and a line whose key names a different
// row is refused.
func ExampleStore_AppendBatch_keys() {
	dir, err := os.MkdirTemp("", "sqlitestore-example")
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

	ana, triage := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	lines := []transcript.Message{
		{Key: "slack:1712345678.000100", Author: ana, Content: "is the deploy on?"},
		{Key: "slack:1712345678.000200", Parent: transcript.BatchParent(0), Author: triage, Content: "at noon"},
	}
	for range 2 { // the second import finds every key present and stores nothing
		if err := st.AppendBatch(ctx, "eng", lines); err != nil {
			log.Fatal(err)
		}
	}
	more := append(lines, transcript.Message{Key: "slack:1712345678.000300", Parent: transcript.BatchParent(0), Author: ana, Content: "thanks"})
	if err := st.AppendBatch(ctx, "eng", more); err != nil {
		log.Fatal(err)
	}
	_, err = st.Append(ctx, "eng", transcript.Message{Key: "slack:1712345678.000200", Author: triage, Content: "edited"})
	fmt.Println(errors.Is(err, transcript.ErrKeyConflict), err)

	rows, err := st.LookupKeys(ctx, "eng", []string{"slack:1712345678.000300", "slack:0"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(rows), rows["slack:1712345678.000300"].Seq, rows["slack:1712345678.000300"].Parent)
	// Output:
	// true append to desk "eng": key "slack:1712345678.000200" already names row 2, which differs in author, parent, audience or content
	// 1 3 1
}
