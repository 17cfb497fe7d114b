package books

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/storage"
)

// Version names one stored version of a participant's book, for SaveBook's
// compare-and-swap: 0 for no book stored, and then 1, 2, 3, ... one up with every save.
type Version int64

// ErrChanged: a Store's SaveBook found another version of the book stored than the one the
// caller expected; nothing was written. Update loads and tries again.
var ErrChanged = errors.New("books: book changed since it was loaded")

// Store keeps participants' books, one per participant and desk, each with a version that
// every save moves: a save succeeds only over the version its caller loaded.
// sqlitestore.Store and pgstore.Store implement it, and so does Memory. Callers update a
// book through Update, which holds the retry rule.
//
// A book belongs to the participant's identity, Kind and ID: its label plays no part, so a
// participant who was renamed keeps its book. A desk name is kept byte for byte ("eng" and
// "Eng" are two desks), and needs no row in the desk's log: a book may be kept for a desk
// that holds no message yet. A Store is safe for concurrent use, by goroutines and by
// other processes on the same database. Every method honours ctx: once it is done, a
// method returns an error matching ctx.Err(), and a save it had not committed is not made.
type Store interface {
	// LoadBook returns p's book on desk and its version, or the empty Book and version 0
	// when none is stored. The book is the one a save stored, as it was (Book.Equal). A desk
	// or participant ValidateOwner refuses is an error matching sharing.ErrInvalidBook (and,
	// for p, transcript.ErrInvalidAuthor), and so is a stored book that does not decode or
	// names another desk. LoadBook finds the book by one lookup of its key, never by a scan.
	LoadBook(ctx context.Context, desk string, p transcript.Author) (sharing.Book, Version, error)

	// SaveBook stores b as p's book on desk if the version stored is expect (0: no book is
	// stored), atomically: of any number of saves over one version, by any process, at most
	// one succeeds. It returns the new version, expect+1. When the version stored is not
	// expect, SaveBook returns an error matching ErrChanged and writes nothing. A book, desk
	// or participant Validate refuses is an error matching sharing.ErrInvalidBook, and
	// nothing is written.
	SaveBook(ctx context.Context, desk string, p transcript.Author, b sharing.Book, expect Version) (Version, error)
}

// ValidateOwner reports whether a Store keeps a book for participant p on desk: desk is a
// desk name (not empty, a text storage.ValidateText accepts) and p is a valid author
// (transcript.Author.Validate) whose id storage.ValidateText accepts. p's label is not
// checked: no store keeps it. The error matches sharing.ErrInvalidBook and, for p,
// transcript.ErrInvalidAuthor; for a text, transcript.ErrText too.
func ValidateOwner(desk string, p transcript.Author) error {
	if desk == "" {
		return fmt.Errorf("%w: empty desk name", sharing.ErrInvalidBook)
	}
	if err := storage.ValidateText("desk name", desk); err != nil {
		return fmt.Errorf("%w: %w", sharing.ErrInvalidBook, err)
	}
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%w: participant: %w", sharing.ErrInvalidBook, err)
	}
	if err := storage.ValidateText("participant id", p.ID); err != nil {
		return fmt.Errorf("%w: %w", sharing.ErrInvalidBook, err)
	}
	return nil
}

// Validate reports whether b can be stored as p's book on desk: ValidateOwner accepts desk
// and p, and every conversation of b, held or evicted, is on desk. The error matches
// sharing.ErrInvalidBook. (A Book's other rules hold by construction: Put, Acknowledge and
// UnmarshalJSON make no other.)
func Validate(desk string, p transcript.Author, b sharing.Book) error {
	if err := ValidateOwner(desk, p); err != nil {
		return err
	}
	if d := b.Desk(); d != "" && d != desk {
		return fmt.Errorf("%w: a book of desk %q saved for desk %q", sharing.ErrInvalidBook, d, desk)
	}
	return nil
}

// Decode decodes text, the JSON a Store stored (Book.MarshalJSON) as p's book on desk, and
// checks it as Validate does: a stored book that does not decode, or names another desk,
// is an error matching sharing.ErrInvalidBook. The stores load books through it.
func Decode(desk string, p transcript.Author, text []byte) (sharing.Book, error) {
	var b sharing.Book
	if err := json.Unmarshal(text, &b); err != nil {
		return sharing.Book{}, fmt.Errorf("%w: %w", sharing.ErrInvalidBook, err)
	}
	if err := Validate(desk, p, b); err != nil {
		return sharing.Book{}, err
	}
	return b, nil
}
