package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/internal/readable"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/storage"
)

func runSearch(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "search", "[flags] WORDS...", `
Search a desk for the messages that hold every one of WORDS, newest first, among the rows
--as may read: an aside it may not read is found by nothing, and no answer shows that one
holds the words. A word is a run of letters and digits, compared in lower case and with
accents as typed ("Café" finds "café", not "cafe"); in Chinese, Japanese and Korean, written
without spaces, a word is a character or two adjacent ones, and longer words are found by
their pairs ("移行" finds "…移行は…", not "行移"); give 1 to 16 words. An edited message
is found by its new words only, a redacted one by none. Flags may come after the words too;
words that start with "-" go after "--".

With --thread the search looks in one thread: its root and direct replies. At most --limit
hits are shown; when older ones exist, the text format ends with the --before to give for
the next page, and the json format gives it as "next" (0: no older hit).

Formats: text, one line a hit: the message's seq, author and content, the words found
marked «like this»; json, {"messages": [...], "next": SEQ}; openai and anthropic, the hits
as a model reads a view, oldest first.`)
	df, as := addViewerFlags(e, fs, "search")
	thread := fs.Uint64("thread", 0, "search the thread rooted at this `seq` only (0: the whole desk)")
	before := fs.Uint64("before", 0, "find only messages below this `seq`, for the next page (0: up to the newest)")
	limit := fs.Int("limit", transcript.SearchLimit, fmt.Sprintf("how many `hits` to show, at most %d", transcript.MaxSearchLimit))
	format := fs.String("format", "text", "output `format`: text, json, openai or anthropic")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf("search takes the WORDS to find")
	}
	q := transcript.SearchQuery{
		Text:   strings.Join(fs.Args(), " "),
		Viewer: as.author,
		Thread: transcript.Sequence(*thread),
		Before: transcript.Sequence(*before),
		Limit:  *limit,
	}
	// The search's own rules, before the database is opened; the store applies them again.
	plan, err := storage.PlanSearch(q)
	if err != nil {
		return badSearch(err)
	}
	st, err := df.OpenDesk(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	searcher, ok := st.Log(df.Desk).(transcript.Searcher)
	if !ok {
		return errors.New("search: this store cannot search")
	}
	if err := checkReadableThread(ctx, st.Log(df.Desk), df.Desk, as.author, q.Thread); err != nil {
		return err
	}
	res, err := searcher.Search(ctx, q)
	if err != nil {
		if errors.Is(err, transcript.ErrBadSearch) {
			return badSearch(err)
		}
		return err
	}
	return writeHits(e, *format, as.author, plan.Terms, res)
}

// badSearch words PlanSearch's refusal for the command line, without quoting the words.
func badSearch(err error) error {
	why := "the text is refused"
	if se := (*transcript.InvalidError)(nil); errors.As(err, &se) && se.Kind == transcript.ErrBadSearch {
		why = se.Reason
	}
	return usageErrorf("search: %s: give 1 to %d words, each at most %d bytes long", why, transcript.MaxSearchTerms, transcript.MaxTermBytes)
}

// checkReadableThread returns an error unless viewer may read row thread of the desk and
// it is no correction, which is no thread (0, the whole desk, is always there), as the
// service and view --thread refuse it. A row the viewer may not read is refused as a
// missing one (readable.Thread), naming neither the desk's newest row nor anything of the
// row, so that the answer is the one the desk would give without it.
func checkReadableThread(ctx context.Context, log transcript.Log, desk string, viewer transcript.Author, thread transcript.Sequence) error {
	if thread == 0 {
		return nil
	}
	if ok, err := readable.Thread(ctx, log, thread, viewer); err != nil || ok {
		return err
	}
	return fmt.Errorf("search --thread: desk %q holds no thread #%d that %s may read", desk, thread, viewer)
}

// writeHits writes a search's result in format: text and json newest first, the model
// formats oldest first, as a view's turns are.
func writeHits(e *env, format string, viewer transcript.Author, terms []string, res transcript.SearchResult) error {
	switch format {
	case "text":
		if len(res.Messages) == 0 {
			_, err := fmt.Fprintf(e.stdout, "no message %s may read holds all these words\n", viewer)
			return err
		}
		if err := render.HitText(e.stdout, viewer, res.Messages, terms, console.Style(e.color)); err != nil {
			return err
		}
		if res.Next != 0 {
			_, err := fmt.Fprintf(e.stdout, "older hits: search again with --before %d\n", res.Next)
			return err
		}
		return nil
	case "json":
		// The service's answer to the same search, in the same shape.
		return writeView(e, format, viewer, render.View{}, server.SearchAnswer{Messages: res.Messages, Next: res.Next})
	}
	oldestFirst := slices.Clone(res.Messages)
	slices.Reverse(oldestFirst)
	return writeView(e, format, viewer, render.View{Messages: oldestFirst}, nil)
}
