package books

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// UpdateAttempts is how many times Update loads, applies and saves before it gives up on a
// book that other sessions keep changing.
const UpdateAttempts = 64

// Update changes p's book on desk in st by fn, with compare-and-swap: it loads the book,
// applies fn, and saves the result over the version it loaded. When another session saved
// in between (ErrChanged), it loads the book again, after a short random pause, and
// applies fn to that: fn's change is applied to the book as stored, never to a stale copy,
// so nothing another session saved is lost, and fn is where the merge lives. An
// acknowledgement, fn = func(b sharing.Book) (sharing.Book, error) { return
// b.Acknowledge(next) }, joins next into whatever is stored (see sharing.Book.Acknowledge).
//
// fn may thus be called several times, each time with the book as then stored, and must
// depend on nothing else: no side effects, the same change every time. A Book fn returns
// that is Equal to the one it was given is not saved. Update returns the book it saved (or
// found unchanged); fn's own error as it is, with nothing saved; a store's error; or, after
// UpdateAttempts conflicts in a row, an error matching ErrChanged. Once ctx is done, it
// returns an error matching ctx.Err().
func Update(ctx context.Context, st Store, desk string, p transcript.Author, fn func(sharing.Book) (sharing.Book, error)) (sharing.Book, error) {
	for attempt := 1; ; attempt++ {
		b, v, err := st.LoadBook(ctx, desk, p)
		if err != nil {
			return sharing.Book{}, err
		}
		next, err := fn(b)
		if err != nil {
			return sharing.Book{}, err
		}
		if next.Equal(b) {
			return b, nil
		}
		_, err = st.SaveBook(ctx, desk, p, next, v)
		switch {
		case err == nil:
			return next, nil
		case !errors.Is(err, ErrChanged):
			return sharing.Book{}, err
		case attempt == UpdateAttempts:
			return sharing.Book{}, fmt.Errorf("books: updating the book of %s on desk %q: changed by others %d times in a row: %w", p, desk, attempt, err)
		}
		if err := pause(ctx, attempt); err != nil {
			return sharing.Book{}, err
		}
	}
}

// pause waits a random time before the attempt after attempt, up to a limit that doubles
// with each attempt from 200µs to 25.6ms, so that sessions that collided do not collide
// again in step, and a session that keeps losing waits long enough for the others to be
// done; it returns ctx.Err() once ctx is done.
func pause(ctx context.Context, attempt int) error {
	limit := 100 * time.Microsecond << min(attempt, 8)
	timer := time.NewTimer(rand.N(limit))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
