package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// Open a store, append a question and its answer, and project the desk's channel. (Not run
// by go test, which has no server to give it: see the package's tests, which run against
// the server in TRANSCRIPT_PG_DSN.)
func Example() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("TRANSCRIPT_PG_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	q, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Person("ana", "Ana"), Content: "Is the build green?"})
	if err != nil {
		log.Fatal(err)
	}
	_, err = st.Append(ctx, "eng", transcript.Message{Parent: q.Seq, Author: transcript.Agent("ci", "CI bot"), Content: "Yes, since 10:02."})
	if err != nil {
		log.Fatal(err)
	}
	p, err := transcript.Project(ctx, st.Log("eng"), transcript.Query{Conversation: transcript.Conversation{Desk: "eng"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range p.Messages {
		fmt.Printf("#%d %s: %s\n", m.Seq, m.Author.Label, m.Content)
	}
}

// AppendBatch stores a thread at once: BatchParent names an earlier message of the batch.
func ExampleStore_AppendBatch() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("TRANSCRIPT_PG_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	err = st.AppendBatch(ctx, "ops", []transcript.Message{
		{Author: transcript.System("alert", "Pager"), Content: "disk 91% on db-2"},
		{Parent: transcript.BatchParent(0), Author: transcript.Agent("triage", "Triage"), Content: "Rotating logs."},
	})
	if err != nil {
		log.Fatal(err)
	}
}

// A desk's Log is a transcript.Searcher: find the newest rows that hold every word, among
// those the viewer may read, and page back through Next.
func ExampleStore_Log_search() {
	ctx := context.Background()
	st, err := pgstore.Open(ctx, os.Getenv("TRANSCRIPT_PG_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	s := st.Log("eng").(transcript.Searcher)
	q := transcript.SearchQuery{Text: "migration rota", Viewer: transcript.Agent("triage", "Triage"), Limit: 10}
	for {
		res, err := s.Search(ctx, q)
		if err != nil {
			log.Fatal(err)
		}
		for _, m := range res.Messages {
			fmt.Printf("#%d %s: %s\n", m.Seq, m.Author.Label, m.Content)
		}
		if res.Next == 0 {
			break
		}
		q.Before = res.Next
	}
}
