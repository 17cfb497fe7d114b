package sharing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
)

// Version names one stored version of a participant's book, for SaveBook's
// compare-and-swap: 0 for no book stored, and then 1, 2, 3, ... one up with every save.
type Version int64

// BookStore keeps participants' books, one per participant and desk, each with a version
// that every save moves, so that two sessions of one participant (two MCP connections of
// one agent, say) cannot lose each other's acknowledgements: a save succeeds only over the
// version its caller loaded. sqlitestore.Store and pgstore.Store implement it, and so does
// MemBookStore. Callers update a book through UpdateBook, which holds the retry rule.
//
// A book belongs to the participant's identity, Kind and ID: its label plays no part, so a
// participant who was renamed keeps its book. A desk name is kept byte for byte ("eng" and
// "Eng" are two desks), and needs no row in the desk's log: a book may be kept for a desk
// that holds no message yet. A BookStore is safe for concurrent use, by goroutines and by
// other processes on the same database. Every method honours ctx: once it is done, a
// method returns an error matching ctx.Err(), and a save it had not committed is not made.
type BookStore interface {
	// LoadBook returns p's book on desk and its version, or the empty Book and version 0
	// when none is stored. The book is the one a save stored, as it was (Book.Equal). A desk
	// or participant ValidateOwner refuses is an error matching ErrInvalidBook (and, for p,
	// transcript.ErrInvalidAuthor), and so is a stored book that does not decode or names
	// another desk. LoadBook finds the book by one lookup of its key, never by a scan.
	LoadBook(ctx context.Context, desk string, p transcript.Author) (Book, Version, error)

	// SaveBook stores b as p's book on desk if the version stored is expect (0: no book is
	// stored), atomically: of any number of saves over one version, by any process, at most
	// one succeeds. It returns the new version, expect+1. When the version stored is not
	// expect, SaveBook returns an error matching ErrBookChanged and writes nothing. A book,
	// desk or participant ValidateBook refuses is an error matching ErrInvalidBook, and
	// nothing is written.
	SaveBook(ctx context.Context, desk string, p transcript.Author, b Book, expect Version) (Version, error)
}

// ValidateOwner reports whether a BookStore keeps a book for participant p on desk: desk is
// a desk name (not empty, valid UTF-8, no NUL byte) and p is a valid author
// (transcript.Author.Validate) whose id is valid UTF-8 without a NUL byte. p's label is
// not checked: no store keeps it. The error matches ErrInvalidBook and, for p,
// transcript.ErrInvalidAuthor. A NUL byte is refused because PostgreSQL's text cannot hold
// one, and every store keeps the same texts.
func ValidateOwner(desk string, p transcript.Author) error {
	if desk == "" {
		return fmt.Errorf("%w: empty desk name", ErrInvalidBook)
	}
	if err := checkText("desk name", desk); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%w: participant: %w", ErrInvalidBook, err)
	}
	return checkText("participant id", p.ID)
}

// ValidateBook reports whether b can be stored as p's book on desk: ValidateOwner accepts
// desk and p, and every conversation of b, held or evicted, is on desk. The error matches
// ErrInvalidBook. (A Book's other rules hold by construction: Put, Acknowledge and
// UnmarshalJSON make no other.)
func ValidateBook(desk string, p transcript.Author, b Book) error {
	if err := ValidateOwner(desk, p); err != nil {
		return err
	}
	if d := b.desk(); d != "" && d != desk {
		return fmt.Errorf("%w: a book of desk %q saved for desk %q", ErrInvalidBook, d, desk)
	}
	return nil
}

// DecodeBook decodes text, the JSON a BookStore stored (Book.MarshalJSON) as p's book on
// desk, and checks it as ValidateBook does: a stored book that does not decode, or names
// another desk, is an error matching ErrInvalidBook. The stores load books through it.
func DecodeBook(desk string, p transcript.Author, text []byte) (Book, error) {
	var b Book
	if err := json.Unmarshal(text, &b); err != nil {
		return Book{}, fmt.Errorf("%w: %w", ErrInvalidBook, err)
	}
	if err := ValidateBook(desk, p, b); err != nil {
		return Book{}, err
	}
	return b, nil
}

// checkText reports whether s is valid UTF-8 without a NUL byte, and quotes no part of it.
func checkText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalidBook, what)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Errorf("%w: %s holds a NUL byte at offset %d", ErrInvalidBook, what, i)
	}
	return nil
}

// UpdateAttempts is how many times UpdateBook loads, applies and saves before it gives up
// on a book that other sessions keep changing.
const UpdateAttempts = 64

// UpdateBook changes p's book on desk by fn, with compare-and-swap: it loads the book,
// applies fn, and saves the result over the version it loaded. When another session saved
// in between (ErrBookChanged), it loads the book again, after a short random pause, and
// applies fn to that: fn's change is applied to the book as stored, never to a stale copy,
// so nothing another session saved is lost, and fn is where the merge lives. An
// acknowledgement, fn = func(b Book) (Book, error) { return b.Acknowledge(next) }, joins
// next into whatever is stored (see Book.Acknowledge).
//
// fn may thus be called several times, each time with the book as then stored, and must
// depend on nothing else: no side effects, the same change every time. A Book fn returns
// that is Equal to the one it was given is not saved. UpdateBook returns the book it saved
// (or found unchanged); fn's own error as it is, with nothing saved; a store's error; or,
// after UpdateAttempts conflicts in a row, an error matching ErrBookChanged. Once ctx is
// done, it returns an error matching ctx.Err().
func UpdateBook(ctx context.Context, st BookStore, desk string, p transcript.Author, fn func(Book) (Book, error)) (Book, error) {
	for attempt := 1; ; attempt++ {
		b, v, err := st.LoadBook(ctx, desk, p)
		if err != nil {
			return Book{}, err
		}
		next, err := fn(b)
		if err != nil {
			return Book{}, err
		}
		if next.Equal(b) {
			return b, nil
		}
		_, err = st.SaveBook(ctx, desk, p, next, v)
		switch {
		case err == nil:
			return next, nil
		case !errors.Is(err, ErrBookChanged):
			return Book{}, err
		case attempt == UpdateAttempts:
			return Book{}, fmt.Errorf("sharing: updating the book of %s on desk %q: changed by others %d times in a row: %w", p, desk, attempt, err)
		}
		if err := pause(ctx, attempt); err != nil {
			return Book{}, err
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
