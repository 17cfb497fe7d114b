package pgstore

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
)

// deskHeadSQL reads desk $1's head, the Seq of its newest row: one probe of the desks'
// primary key. No row: a desk that holds none (yet).
const deskHeadSQL = `SELECT head FROM transcript_desks WHERE name = $1`

// readRows reads up to n rows of desk below bound (math.MaxInt64: from the newest), newest
// first, for a Log: on the store's own pool, or, with standbys, where route finds them.
func (s *Store) readRows(ctx context.Context, desk string, bound int64, n int) ([]transcript.Message, error) {
	s.hooks.reads.Add(1)
	read := pageRead{audiences: &s.audiences, desk: desk, bound: bound, n: n}
	if !s.replicas.active() {
		if pending := pendingOf(ctx); pending.p != nil {
			return readPending(ctx, s.pool, &s.audiences, desk, bound, n, pending)
		}
		return read.onPool(ctx, s.pool)
	}
	return s.replicas.route(ctx, desk, read)
}

// readOn is readRows' query on pool, its rows scanned up to transcript.PageBytes (scanPage),
// decoding audiences through audiences.
func readOn(ctx context.Context, pool *pgxpool.Pool, audiences *audienceCache, desk string, bound int64, n int) ([]transcript.Message, error) {
	rows, err := pool.Query(ctx, readBeforeSQL, desk, bound, n)
	if err != nil {
		return nil, err
	}
	return scanPage(rows, pageRows(n), audiences)
}

// readPending is readOn on the primary's pool for a read that settles a pending token
// (pendingOf): the page, gated on the token, which a page of rows shows good.
func readPending(ctx context.Context, pool *pgxpool.Pool, audiences *audienceCache, desk string, bound int64, n int, pending pendingRead) ([]transcript.Message, error) {
	rows, err := pool.Query(ctx, readBeforeGatedSQL, desk, bound, n, pending.hash)
	if err != nil {
		return nil, err
	}
	msgs, err := scanPage(rows, pageRows(n), audiences)
	if err == nil && len(msgs) > 0 {
		pending.good()
	}
	return msgs, err
}

// pageRows is the slice a page read of n rows scans into.
func pageRows(n int) []transcript.Message {
	return make([]transcript.Message, 0, min(n, 2*transcript.PageSize+1))
}

// routedRead is one read of a desk that route may send to a standby: a Log's page
// (pageRead) or a search (searchRead).
type routedRead interface {
	// onPool runs the read on pool, the primary's or a standby's.
	onPool(ctx context.Context, pool *pgxpool.Pool) ([]transcript.Message, error)
	// onStandby runs it on sb, and returns with the rows the standby's head of the desk when
	// it read it first, in the same round trip (math.MaxInt64 when it did not).
	onStandby(ctx context.Context, sb *standby) (_ []transcript.Message, head int64, _ error)
	// judge says whether rows, a standby's answer whose head was head, may be taken.
	judge(rows []transcript.Message, known, head int64) verdict
	// target is the head a lagging standby must reach before it is read again.
	target(known int64) int64
}

// pageRead is a Log's read of up to n rows of desk below bound (math.MaxInt64: from the
// newest), decoding audiences through audiences.
type pageRead struct {
	audiences *audienceCache
	desk      string
	bound     int64
	n         int
}

func (p pageRead) onPool(ctx context.Context, pool *pgxpool.Pool) ([]transcript.Message, error) {
	return readOn(ctx, pool, p.audiences, p.desk, p.bound, p.n)
}

func (p pageRead) onStandby(ctx context.Context, sb *standby) ([]transcript.Message, int64, error) {
	return readStandby(ctx, sb, p.audiences, p.desk, p.bound, p.n)
}

func (p pageRead) judge(rows []transcript.Message, known, head int64) verdict {
	return judge(rows, p.bound, known, head)
}

// target is the known row, or for a read below a bound, the row below it if it is newer.
func (p pageRead) target(known int64) int64 {
	if p.bound != math.MaxInt64 {
		return max(p.bound-1, known)
	}
	return known
}

// route runs read on the standbys, in turn, and takes the first answer that is whole
// (read.judge; for a page, judge): for a page, one that holds every row of desk below its
// bound that the store knows is committed (its fence, which the desk's head on the primary,
// read beside the first standby's read, raises before any answer is judged: probeHead) and,
// for a read below a bound, the row just below it. While the Store's own watch listens
// (watchFences, which raises the fences as commits are notified), the fence stands as it
// is, and no probe is made. A standby that fails is skipped for a while; one that is
// behind is waited for, up to r.wait, then the read goes to the primary, whose answer is
// always whole. Each query on a standby is bounded by standbyAttempt, so a standby that stops
// answering delays a read by that at most before it is skipped. A standby Open could not
// reach is checked first (checkLate), by one read at a time, which that check may delay as
// long.
func (r *replicas) route(ctx context.Context, desk string, read routedRead) ([]transcript.Message, error) {
	probe := r.probeHead(ctx, desk, !r.watching.Load())
	var known int64
	now := time.Now().UnixNano()
	var behind []*standby
	first := int(r.turn.Add(1) % uint32(len(r.standbys))) // in uint32: no negative index where int is 32 bits
	for i := range r.standbys {
		sb := r.standbys[(first+i)%len(r.standbys)]
		if sb.skipped(now) || sb.load() != checked && !r.checkLate(ctx, sb) {
			continue
		}
		actx, cancel := attempt(ctx)
		if lsn, deleted := r.fences.deletion(desk); deleted {
			past, err := sb.replayedPast(actx, lsn)
			if err != nil || !past { // it may still show the desk this Store deleted
				if err != nil && ctx.Err() == nil {
					sb.failed(actx.Err() != nil)
				}
				cancel()
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
		}
		rows, head, err := read.onStandby(actx, sb)
		timedOut := actx.Err() != nil
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			sb.failed(timedOut) // from the failure: a slow one is skipped as long as a quick one
			continue
		}
		sb.answered()
		switch held, err := probe.wait(); {
		case err != nil:
			return nil, err
		case !held:
			return r.onPrimary(ctx, desk, read)
		}
		known = r.fences.get(desk)
		switch read.judge(rows, known, head) {
		case whole:
			return r.took(sb, desk, rows), nil
		case lagging:
			if sb.noWaitUntil.Load() <= now {
				behind = append(behind, sb)
			}
		}
	}
	if len(behind) > 0 && r.wait > 0 { // a standby answered: the probe has too, and known is its
		rows, sb, err := r.waitFor(ctx, behind, desk, read, known)
		switch {
		case err != nil:
			return nil, err
		case sb != nil:
			return r.took(sb, desk, rows), nil
		}
	}
	return r.onPrimary(ctx, desk, read)
}

// onPrimary runs read of desk on the primary, whose answer is always whole.
func (r *replicas) onPrimary(ctx context.Context, desk string, read routedRead) ([]transcript.Message, error) {
	rows, err := read.onPool(ctx, r.primary)
	if err != nil {
		return nil, err
	}
	r.primaryReads.Add(1)
	r.fences.raise(desk, newest(rows))
	return rows, nil
}

// headProbe is learnHead's read of a desk's head on the primary, made beside a standby's
// read of the desk: its answer is waited for before the standby's is judged.
type headProbe struct {
	done chan struct{}
	held bool
	err  error
}

// noProbe is the probe of a read that makes none: it answers at once, as if the primary
// held the desk. Every such read shares it.
var noProbe = func() *headProbe {
	p := &headProbe{done: make(chan struct{}), held: true}
	close(p.done)
	return p
}()

// probeHead starts learnHead(ctx, desk), which ends by itself, within standbyAttempt; or,
// without learn, returns noProbe.
func (r *replicas) probeHead(ctx context.Context, desk string, learn bool) *headProbe {
	if !learn {
		return noProbe
	}
	p := &headProbe{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.held, p.err = r.learnHead(ctx, desk)
	}()
	return p
}

// wait returns learnHead's answer once it has come.
func (p *headProbe) wait() (held bool, err error) {
	<-p.done
	return p.held, p.err
}

// learnHead raises desk's fence to the desk's head on the primary, read now, so that a
// standby's answer to a read begun before is taken only once the standby has replayed every
// commit of the desk that finished before the read began, by any process: another
// process's redaction among them, whose erased content a lagging standby still shows. It reports false when the
// primary holds no such desk (another process may have deleted it, and a standby that has
// not replayed the deletion still shows its rows): the read is then the primary's. When the
// primary does not answer within standbyAttempt, the standbys answer as the fence already
// stood (no redaction commits on a primary that cannot be reached). The probe is one read
// of the desks' primary key, and is not counted among the reads the primary answered.
func (r *replicas) learnHead(ctx context.Context, desk string) (held bool, _ error) {
	actx, cancel := attempt(ctx)
	defer cancel()
	var head int64
	switch err := r.primary.QueryRow(actx, deskHeadSQL, desk).Scan(&head); {
	case err == nil:
		r.fences.raise(desk, head)
		return true, nil
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	}
	return true, nil
}

// took notes that sb answered a read of desk with rows, and returns them.
func (r *replicas) took(sb *standby, desk string, rows []transcript.Message) []transcript.Message {
	sb.served.Add(1)
	r.fences.raise(desk, newest(rows))
	return rows
}

// readStandby is readOn on sb, and, for a read below a bound, sb's head of desk, read first
// in the same round trip: the rows, read after, show at least every commit the head does.
// The head is math.MaxInt64 when it is not read, as judge then needs none.
func readStandby(ctx context.Context, sb *standby, audiences *audienceCache, desk string, bound int64, n int) (_ []transcript.Message, head int64, _ error) {
	if bound == math.MaxInt64 || bound <= 1 {
		rows, err := readOn(ctx, sb.pool, audiences, desk, bound, n)
		return rows, math.MaxInt64, err
	}
	var b pgx.Batch
	b.Queue(deskHeadSQL, desk)
	b.Queue(readBeforeSQL, desk, bound, n)
	br := sb.pool.SendBatch(ctx, &b)
	defer br.Close()
	if err := br.QueryRow().Scan(&head); err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, 0, err
	}
	res, err := br.Query()
	if err != nil {
		return nil, 0, err
	}
	rows, err := scanPage(res, pageRows(n), audiences)
	if err != nil {
		return nil, 0, err
	}
	return rows, head, br.Close()
}

// verdict is what judge says of a standby's answer.
type verdict int

const (
	whole   verdict = iota // it holds what the read needs: take it
	lagging                // it misses a row the store knows is committed: wait for the standby
	unsure                 // it may miss rows nobody here knows of: ask another, or the primary
)

// judge says whether rows, a standby's answer to a read of a desk below bound, may be
// taken, when the newest row of the desk that the store knows is committed is known, and
// the standby's head of the desk, read before rows, is head (math.MaxInt64: not read).
//
// A desk's rows are numbered without a gap and committed in Seq order, and a standby
// replays commits in the primary's order, so what a standby shows of a desk is always every
// row up to some Seq: its answer misses no row below its newest. A read from the newest
// (bound math.MaxInt64) is whole when its newest row is at least known. A read below a
// bound b is whole when it shows row b-1 (or b is 1: no row is below it); else the standby
// lags when the store knows that row is committed (b-1 <= known), and the store cannot tell
// otherwise: the caller may know of rows it does not.
//
// A commit can also change rows below its own: a correction updates the row it corrects,
// and a redaction erases it. So an answer below a bound is whole only when the standby has
// replayed every commit the store knows of too (head >= known), else it lags: a read after
// a redaction that the store made or heard of never returns the erased content. A read from
// the newest that shows the known row has replayed every commit up to it.
func judge(rows []transcript.Message, bound, known, head int64) verdict {
	top := newest(rows)
	switch {
	case bound == math.MaxInt64 && top >= known:
		return whole
	case bound == math.MaxInt64:
		return lagging
	case bound <= 1: // no row is below it
		return whole
	case head < known:
		return lagging
	case top == bound-1:
		return whole
	case bound-1 <= known:
		return lagging
	}
	return unsure
}

// newest is the Seq of the first row of rows, newest first; 0 for none.
func newest(rows []transcript.Message) int64 {
	if len(rows) == 0 {
		return 0
	}
	return int64(rows[0].Seq)
}

// waitFor waits, up to r.wait, for one of the standbys behind to replay the row the read
// needs (read.target: for a page, the known fence, or for a read below a bound, the row
// below it), looking at each one's head of desk, at pauses growing from lagPollFirst to
// lagPollMost; then it reads there. It
// returns the rows and the standby that answered, or no standby when none caught up in time
// (each is then not waited for again for lagCooldown), or ctx's error once ctx is done. A
// look that is under way when the wait runs out may finish it, within standbyAttempt: the
// wait is bounded by r.wait + standbyAttempt.
func (r *replicas) waitFor(ctx context.Context, behind []*standby, desk string, read routedRead, known int64) ([]transcript.Message, *standby, error) {
	target := read.target(known)
	deadline := time.Now().Add(r.wait)
	pause := lagPollFirst
	for len(behind) > 0 {
		timer := time.NewTimer(min(pause, time.Until(deadline)))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, nil, ctx.Err()
		case <-timer.C:
		}
		for i := 0; i < len(behind); i++ {
			sb := behind[i]
			actx, cancel := attempt(ctx)
			head, err := standbyHead(actx, sb, desk)
			if err == nil && head >= target {
				var rows []transcript.Message
				if rows, err = read.onPool(actx, sb.pool); err == nil && read.judge(rows, known, head) == whole {
					cancel()
					return rows, sb, nil
				}
			}
			timedOut := actx.Err() != nil
			cancel()
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			if err != nil {
				sb.failed(timedOut)
				behind = append(behind[:i], behind[i+1:]...)
				i--
			}
		}
		if !time.Now().Before(deadline) {
			break
		}
		pause = min(2*pause, lagPollMost)
	}
	until := time.Now().Add(lagCooldown).UnixNano()
	for _, sb := range behind {
		sb.noWaitUntil.Store(until)
	}
	r.hooks.waitsRanOut.Add(1)
	return nil, nil, nil
}

// replaySQL reads how far a standby replayed the primary's WAL, as a number of bytes; NULL
// from a server that is not in recovery, which shows every commit.
const replaySQL = `SELECT CASE WHEN pg_is_in_recovery() THEN (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::int8 END`

// replayedPast reports whether sb has replayed the primary's WAL up to lsn, asking it only
// while the newest position it was seen at is below: replay only moves on.
func (sb *standby) replayedPast(ctx context.Context, lsn int64) (bool, error) {
	if sb.replayed.Load() >= lsn {
		return true, nil
	}
	var replayed *int64
	if err := sb.pool.QueryRow(ctx, replaySQL).Scan(&replayed); err != nil {
		return false, err
	}
	at := int64(math.MaxInt64)
	if replayed != nil {
		at = *replayed
	}
	for cur := sb.replayed.Load(); cur < at && !sb.replayed.CompareAndSwap(cur, at); cur = sb.replayed.Load() {
	}
	return at >= lsn, nil
}

// standbyHead reads desk's head on sb: 0 for a desk it does not hold.
func standbyHead(ctx context.Context, sb *standby, desk string) (int64, error) {
	var head int64
	err := sb.pool.QueryRow(ctx, deskHeadSQL, desk).Scan(&head)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return head, err
}
