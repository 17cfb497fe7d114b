package digest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/readable"
	"github.com/sharedesk/transcript/storage"
)

// The errors of Fold. Each matches with errors.Is; the messages name the conversation and
// the rule, never a row's content or a digester's text.
var (
	// ErrInvalidPolicy: a Policy field is negative, KeepLive, FoldAfter or InputLimit is
	// above 100,000 rows, or Budget is above 64 KiB characters.
	ErrInvalidPolicy = errors.New("invalid policy")
	// ErrNoConversation: the desk holds no row, or the thread is not a root of the desk.
	ErrNoConversation = errors.New("no such conversation")
	// ErrRefused: the digester's text is blank, over the budget or not storable (invalid
	// UTF-8, a NUL byte). Its text is dropped, never cut.
	ErrRefused = errors.New("text refused")
)

// The defaults of a zero Policy field, and the largest Budget and row counts. A fold holds
// up to KeepLive plus the larger of InputLimit and FoldAfter rows, and sends up to
// InputLimit to the digester: maxPolicyRows bounds each, far above any use.
const (
	defaultFoldAfter  = 20
	defaultInputLimit = 200
	defaultBudget     = 4000
	maxBudget         = 64 << 10
	maxPolicyRows     = 100_000
)

// Validate reports why Fold would refuse p, an error matching ErrInvalidPolicy that names
// the first field it refuses; nil when it would not.
func (p Policy) Validate() error {
	_, err := p.withDefaults()
	return err
}

// withDefaults returns p with every zero field its default, or an error naming the first
// field it refuses.
func (p Policy) withDefaults() (Policy, error) {
	for _, f := range []struct {
		name      string
		v         *int
		def, most int
		unit      string
	}{
		{"KeepLive", &p.KeepLive, transcript.SessionWindow, maxPolicyRows, "rows"},
		{"FoldAfter", &p.FoldAfter, defaultFoldAfter, maxPolicyRows, "rows"},
		{"InputLimit", &p.InputLimit, defaultInputLimit, maxPolicyRows, "rows"},
		{"Budget", &p.Budget, defaultBudget, maxBudget, "characters (64 KiB)"},
	} {
		switch {
		case *f.v < 0:
			return Policy{}, fmt.Errorf("digest: %w: %s is %d, below 0 (0 means the default, %d)", ErrInvalidPolicy, f.name, *f.v, f.def)
		case *f.v == 0:
			*f.v = f.def
		case *f.v > f.most:
			return Policy{}, fmt.Errorf("digest: %w: %s is %d, above %d %s", ErrInvalidPolicy, f.name, *f.v, f.most, f.unit)
		}
	}
	return p, nil
}

// Fold folds the older history of conversation c into the next generation of its digest,
// when the policy says it is time, and stores it in store. It returns c's digest after the
// fold (the zero Digest when it has none) and whether Fold stored it. A fold that fails once
// it has read rows reads the digest again to return it, since a redaction that committed
// meanwhile may have deleted the one it read first; when that read fails too (ctx ended,
// for one) it returns the zero Digest.
//
// The rows folded are those the zero Author's view of c qualifies, as transcript.ReadUnseen
// reads them: at channel level the roots and their first replies, in a thread its direct
// replies (never the root, which every thread view pins); never an aside, a correction or a
// blank row. With the held digest H (store.Digest(c, 0)), Fold reads those rows above
// H.Through, oldest first, up to Policy.KeepLive plus the larger of Policy.InputLimit and
// Policy.FoldAfter. When there are at least KeepLive+FoldAfter, it hands the oldest of them
// (all but the newest KeepLive, at most InputLimit after any redacted rows ahead of the
// first with words) to d, with H as the Request's Prior, and the new digest's Through is
// the newest of them. A redacted row keeps its place and counts toward KeepLive and
// FoldAfter, but is never sent; Rows counts the rows sent, every generation together. When
// every row due is redacted, Fold waits for more rows. The walk reads the rows above
// H.Through and, below it, what the channel's first replies need, within
// transcript.ScanLimit: never the whole desk.
//
// d's text is stored only when it is not blank, holds at most Policy.Budget characters
// (runes), is valid UTF-8 and holds no NUL byte; otherwise Fold fails with ErrRefused (a
// text is never cut) and the held digest stays, as it does when d fails or ctx ends before
// its answer (the error then matches ctx.Err()). The store refuses with ErrSuperseded a
// digest another fold or a correction overtook, or one folded from a desk deleted since
// Fold read its head (store.DigestRead, before any row): of two folds of c at once, one
// stores a generation, and no desk made anew under a deleted desk's name gets its words.
// A Digester with a method Name() string is named by it in the digests it writes
// ("extractive", "openai:MODEL"), any other by its Go type.
//
// Fold's errors are for whoever folds, never for a reader: they name c (c.Desk names the
// desk) and the rule, never a row's content or d's text. A store that holds no row (a desk
// that does not exist) or a c.Thread that is not a root of the desk is ErrNoConversation, a
// policy Validate refuses ErrInvalidPolicy; the store's and the walk's failures come back
// wrapped.
func Fold(ctx context.Context, store Store, d Digester, p Policy, c transcript.Conversation) (transcript.Digest, bool, error) {
	p, err := p.withDefaults()
	if err != nil {
		return transcript.Digest{}, false, err
	}
	where := conversationName(c)
	read, err := store.DigestRead(ctx) // before any row: the desk the rows are of
	head := read.Head
	if err != nil {
		return transcript.Digest{}, false, fmt.Errorf("digest: %s: %w", where, err)
	}
	if head == 0 {
		return transcript.Digest{}, false, fmt.Errorf("digest: %s: %w: the desk holds no row", where, ErrNoConversation)
	}
	if c.Thread != 0 {
		root, ok, err := readable.Row(ctx, store, c.Thread, transcript.Operator())
		switch {
		case err != nil:
			return transcript.Digest{}, false, fmt.Errorf("digest: %s: %w", where, err)
		case !ok:
			return transcript.Digest{}, false, fmt.Errorf("digest: %s: %w: no row %d", where, ErrNoConversation, c.Thread)
		case root.Parent != 0 || root.IsCorrection():
			return transcript.Digest{}, false, fmt.Errorf("digest: %s: %w: row %d is not a root", where, ErrNoConversation, c.Thread)
		}
	}
	held, ok, err := store.Digest(ctx, c, 0)
	if err != nil {
		return transcript.Digest{}, false, fmt.Errorf("digest: %s: reading the held digest: %w", where, err)
	}
	var prior *transcript.Digest
	if ok {
		copied := held // the digester's, which may not change held
		prior = &copied
	}
	rows, err := qualifying(ctx, store, c, held.Through, head, p)
	if err != nil {
		return heldNow(ctx, store, c), false, fmt.Errorf("digest: %s: %w", where, err)
	}
	folded, send := due(rows, p)
	if len(send) == 0 {
		// Read again: a redaction that committed while the fold read its rows may have
		// deleted the digest read when it began, which is never answered after it.
		now, ok, err := store.Digest(ctx, c, 0)
		if err != nil || !ok {
			now = transcript.Digest{}
		}
		if err != nil {
			err = fmt.Errorf("digest: %s: reading the held digest: %w", where, err)
		}
		return now, false, err
	}
	through := folded[len(folded)-1].Seq
	text, err := d.Digest(ctx, Request{Conversation: c, Prior: prior, Messages: send, Budget: p.Budget, Current: current(store, read, through)})
	if err == nil {
		err = ctx.Err() // a digester that answers after ctx ended is too slow
	}
	if err != nil {
		return heldNow(ctx, store, c), false, fmt.Errorf("digest: %s: digester %s: %w", where, digesterName(d), err)
	}
	if err := accept(text, p.Budget); err != nil {
		return heldNow(ctx, store, c), false, fmt.Errorf("digest: %s: digester %s: %w", where, digesterName(d), err)
	}
	next := transcript.Digest{
		Conversation: c,
		Through:      through,
		Rows:         held.Rows + len(send),
		Generation:   held.Generation + 1,
		Digester:     digesterName(d),
		Text:         text,
	}
	if err := store.PutDigest(ctx, next, read); err != nil {
		return heldNow(ctx, store, c), false, fmt.Errorf("digest: %s: storing generation %d: %w", where, next.Generation, err)
	}
	return next, true, nil
}

// current is Request.Current for a fold that took read before it read its rows, and folds
// the desk's rows up to through (Prior's among them): it fails with ErrSuperseded when
// the desk is not the one read names, or a row appended since read.Head corrects one of
// them as storage.CorrectsFolded says, the rule PutDigest refuses such a digest by. It
// reads the desk's head, and the rows above read.Head when there are any.
func current(store Store, read storage.DigestRead, through transcript.Sequence) func(context.Context) error {
	return func(ctx context.Context) error {
		now, err := store.DigestRead(ctx)
		switch {
		case err != nil:
			return err
		case now.Desk != read.Desk:
			return fmt.Errorf("%w: the desk was deleted after the fold read it", ErrSuperseded)
		}
		for before := now.Head + 1; before > read.Head+1; {
			page, err := store.ReadBefore(ctx, before, int(min(before-read.Head-1, transcript.PageSize)))
			if err != nil {
				return err
			}
			for i := range page.Messages {
				m := &page.Messages[i]
				if m.Seq <= read.Head {
					return nil
				}
				if storage.CorrectsFolded(m, through) {
					return fmt.Errorf("%w: row %d was corrected after the fold read it", ErrSuperseded, m.Corrects)
				}
			}
			if page.Next == 0 {
				return nil
			}
			before = page.Next
		}
		return nil
	}
}

// heldNow is c's digest as store holds it once a fold has failed, read again: the one the
// fold read when it began may be gone, deleted with a row it stands for by a redaction
// that committed while the fold read its rows or the digester ran, and is never answered
// after it. The zero Digest
// when the read fails, ctx having ended among other causes.
func heldNow(ctx context.Context, store Store, c transcript.Conversation) transcript.Digest {
	d, ok, err := store.Digest(ctx, c, 0)
	if err != nil || !ok {
		return transcript.Digest{}
	}
	return d
}

// due returns the rows a fold folds — all but the newest KeepLive of rows, at most
// InputLimit of them after any redacted rows ahead of the first with words — and those of
// them it sends, the ones with words; none when the rows are not yet KeepLive+FoldAfter or
// every row due is redacted.
func due(rows []transcript.Message, p Policy) (folded, send []transcript.Message) {
	if len(rows) < p.KeepLive+p.FoldAfter {
		return nil, nil
	}
	lead := 0
	for lead < len(rows) && rows[lead].Redacted {
		lead++
	}
	folded = rows[:min(len(rows)-p.KeepLive, lead+p.InputLimit)]
	for _, m := range folded {
		if !m.Redacted {
			send = append(send, m)
		}
	}
	return folded, send
}

// accept reports why text may not be stored as a digest within budget characters.
func accept(text string, budget int) error {
	if err := storage.ValidateText("digest text", text); err != nil {
		return &transcript.InvalidError{Kind: ErrRefused, Reason: err.Error(), Cause: err}
	}
	switch {
	case strings.TrimSpace(text) == "":
		return &transcript.InvalidError{Kind: ErrRefused, Reason: "blank"}
	case utf8.RuneCountInString(text) > budget:
		n := utf8.RuneCountInString(text)
		return &transcript.InvalidError{Kind: ErrRefused, Reason: fmt.Sprintf("%d characters, over the budget of %d", n, budget)}
	}
	return nil
}

// digesterName returns the name d gives itself, or its Go type's.
func digesterName(d Digester) string {
	if n, ok := d.(Named); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", d)
}

// conversationName names c in an error.
func conversationName(c transcript.Conversation) string {
	if c.Thread == 0 {
		return fmt.Sprintf("desk %q channel", c.Desk)
	}
	return fmt.Sprintf("desk %q thread %d", c.Desk, c.Thread)
}
