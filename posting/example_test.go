package posting_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/posting"
)

// A transport prepares the post, appends it, and maps a refusal by its kind to its answer.
func ExamplePrepare() {
	ctx := context.Background()
	log := memlog.New()
	coder := transcript.Agent("coder", "Coder")

	m, _, err := posting.Prepare(ctx, log, coder, posting.Request{Content: "hello", Key: "greeting"})
	if err != nil {
		panic(err)
	}
	stored, _ := log.Append(ctx, m)
	fmt.Println(stored.Seq, stored.Author, stored.Content)

	_, _, err = posting.Prepare(ctx, log, coder, posting.Request{Content: "a reply", Parent: 7})
	var refusal *posting.Error
	if errors.As(err, &refusal) && refusal.Kind == posting.NoParent {
		fmt.Println("404:", refusal.Reason)
	}
	// Output:
	// 1 agent:coder hello
	// 404: no message 7 that the author can read
}
