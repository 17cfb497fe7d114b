package storage_test

import (
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// A store's append: Check what the messages alone tell, read what Reads names, Settle, and
// write the Settlement. Here the desk is a slice, read and written under one lock.
func ExampleBatch() {
	alice, bot := transcript.Person("alice", "Alice"), transcript.Agent("bot", "Bot")
	desk := []transcript.Message{{Seq: 1, Author: alice, Content: "deploy at noon?", Key: "m1"}}

	b := storage.Batch{Desk: "eng", Messages: []transcript.Message{
		{Author: alice, Content: "deploy at noon?", Key: "m1"},                      // a retry: row 1 again
		{Author: bot, Content: "noon works", Parent: 1},                             // a new row, 2
		{Author: alice, Content: "see you then", Parent: transcript.BatchParent(1)}, // a reply to it, 3
	}}
	if err := b.Check(); err != nil {
		fmt.Println(err)
		return
	}
	seqs, _, keys := b.Reads()
	stored := map[transcript.Sequence]transcript.Message{}
	for _, seq := range seqs {
		stored[seq] = desk[seq-1]
	}
	present := map[string]*transcript.Message{}
	for _, k := range keys {
		for i := range desk {
			if desk[i].Key == k {
				present[k] = &desk[i]
			}
		}
	}
	head := desk[len(desk)-1].Seq
	settled, err := b.Settle(head, stored, present)
	if err != nil {
		fmt.Println(err)
		return
	}
	desk = append(desk, settled.Added...)
	for _, r := range settled.Rows {
		fmt.Printf("row %d (parent %d): %s\n", r.Seq, r.Parent, r.Content)
	}
	fmt.Println("the desk holds", len(desk), "rows")

	// One key for a different message is refused, and nothing is written.
	b = storage.Batch{Desk: "eng", Messages: []transcript.Message{{Author: bot, Content: "other", Key: "m1"}}}
	_, err = b.Settle(3, nil, map[string]*transcript.Message{"m1": &desk[0]})
	fmt.Println(errors.Is(err, transcript.ErrKeyConflict), err)
	// Output:
	// row 1 (parent 0): deploy at noon?
	// row 2 (parent 1): noon works
	// row 3 (parent 2): see you then
	// the desk holds 3 rows
	// true append batch to desk "eng": message 0: key "m1" already names row 1, which differs in author, parent, audience or content
}
