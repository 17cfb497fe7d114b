package transcript_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// limitsLog records the limit of every read of log.
type limitsLog struct {
	log    transcript.Log
	limits []int
}

func (l *limitsLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	l.limits = append(l.limits, limit)
	return l.log.ReadBefore(ctx, before, limit)
}

// TestPagerPages: Pages reads first rows, then doubles up to PageSize, asks for no more
// than Want said after the page before (once), never for more than the scan budget left,
// and ends at ScanLimit; on a shorter log it ends with the page that ends the log.
func TestPagerPages(t *testing.T) {
	ctx := context.Background()
	rows := make([]transcript.Message, 3000)
	for i := range rows {
		rows[i] = transcript.Message{Seq: transcript.Sequence(i + 1), Author: transcript.Person("ana", ""), Content: "m"}
	}
	log, err := memlog.From(rows)
	if err != nil {
		t.Fatal(err)
	}
	l := &limitsLog{log: log}
	p := transcript.NewPager(l, 0)
	var got int
	for page, err := range p.Pages(ctx, 100) {
		if err != nil {
			t.Fatal(err)
		}
		got += len(page)
		if len(l.limits) == 2 {
			p.Want(50)
		}
	}
	want := []int{100, 200, 50, 100, 200, 400, 512, 486} // 2048 - 1562 = 486: the scan budget left
	if !slices.Equal(l.limits, want) || got != transcript.ScanLimit || p.Scanned() != transcript.ScanLimit || p.Done() {
		t.Errorf("limits %v, %d rows (Scanned %d, Done %v); want %v, %d rows, not done", l.limits, got, p.Scanned(), p.Done(), want, transcript.ScanLimit)
	}

	short, err := memlog.From(rows[:250])
	if err != nil {
		t.Fatal(err)
	}
	l = &limitsLog{log: short}
	p = transcript.NewPager(l, 0)
	pages := 0
	for _, err := range p.Pages(ctx, 64) {
		if err != nil {
			t.Fatal(err)
		}
		pages++
	}
	if want := []int{64, 128, 256}; !slices.Equal(l.limits, want) || pages != 3 || !p.Done() || p.Scanned() != 250 {
		t.Errorf("on 250 rows: limits %v, %d pages, Done %v, Scanned %d; want %v, 3 pages, done, 250", l.limits, pages, p.Done(), p.Scanned(), want)
	}
}

// TestPagerPagesError: a host error ends Pages, yielded once with no rows, and the Pager
// stays failed.
func TestPagerPagesError(t *testing.T) {
	boom := errors.New("boom")
	log := &scriptedLog{pages: []transcript.Page{page(5, 9, 8, 7, 6, 5)}, err: boom}
	p := transcript.NewPager(log, 0)
	var errs []error
	n := 0
	for page, err := range p.Pages(context.Background(), 5) {
		n++
		if err != nil {
			errs = append(errs, err)
			if page != nil {
				t.Errorf("the error came with %d rows", len(page))
			}
		}
	}
	var re *transcript.ReadError
	if n != 2 || len(errs) != 1 || !errors.As(errs[0], &re) || !errors.Is(errs[0], boom) {
		t.Fatalf("%d yields, errors %v; want a page, then one *ReadError wrapping the host's", n, errs)
	}
	if _, err := p.Next(context.Background(), 5); !errors.Is(err, boom) {
		t.Errorf("Next after the error: %v, want the same error", err)
	}
}
