package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// replicas are a Store's standbys (WithStandbys) and what routing its reads over them needs:
// each standby's pool and state, the fences that tell a standby's whole answer from a
// lagging one, and the turn that spreads reads over them. A Store without standbys has
// none, and reads on its primary. The methods are safe for concurrent use once open has
// returned.
type replicas struct {
	configs  []*pgxpool.Config // WithStandbys', which open makes standbys of
	standbys []*standby
	wait     time.Duration // WithStandbyWait: how long a read waits for a lagging standby
	report   func(error)   // WithStandbyReport's, if any

	// primary and hooks are the Store's: a read no standby can answer goes to primary.
	primary *pgxpool.Pool
	hooks   *hooks
	// identity and version are what open checked the standbys against: a standby open
	// could not reach is checked against them once it answers (checkLate).
	identity identity
	version  int

	fences       fences
	turn         atomic.Uint32 // which standby the next read asks first
	primaryReads atomic.Int64  // reads that went to the primary, the standbys unable to answer
	// watching is true while the Store's own WatchHeads listens on the primary
	// (watchFences): the fences then hear of every commit, by any process.
	watching atomic.Bool
}

// standby is one of a Store's standbys: its pool, its name for errors, and its state,
// which reads share.
type standby struct {
	pool *pgxpool.Pool
	name string // host:port/database: never the password

	state       atomic.Int32 // a standbyState
	failures    atomic.Int32 // failures in a row
	skipUntil   atomic.Int64 // unix nanoseconds: skipped until then, after a failure
	noWaitUntil atomic.Int64 // unix nanoseconds: not waited for until then, after a wait for it ran out
	served      atomic.Int64 // reads it answered
	replayed    atomic.Int64 // the newest WAL position it was seen to have replayed (replayedPast)
}

// standbyState is where a standby stands with the check that it is a standby of the
// primary's database at the primary's schema: reads take the answers of a checked standby
// only. Apart from it, a standby that failed is skipped for a while (skipUntil), and one
// that did not catch up within a read's wait is not waited for again for a while
// (noWaitUntil).
type standbyState int32

const (
	// unchecked: open could not reach it, or a check since found it not ready (not
	// reached, behind the schema); the next read that tries it checks it first.
	unchecked standbyState = iota
	// reported: unchecked, and a check found what open would have failed on (a refused
	// password, a missing database) and reported it; it is not reported again.
	reported
	// checking: a read is checking it; the other reads skip it meanwhile.
	checking
	// checked: reads take its answers.
	checked
	// refused: it is no standby of the primary's database, or at a newer schema; it is
	// never read from.
	refused
)

func (st standbyState) String() string {
	switch st {
	case unchecked:
		return "unchecked"
	case reported:
		return "unchecked, reported"
	case checking:
		return "checking"
	case checked:
		return "checked"
	case refused:
		return "refused"
	}
	return "standbyState(" + strconv.Itoa(int(st)) + ")"
}

// load returns the standby's state.
func (sb *standby) load() standbyState { return standbyState(sb.state.Load()) }

// move moves the standby from state from to state to, and reports whether it was at from.
func (sb *standby) move(from, to standbyState) bool {
	return sb.state.CompareAndSwap(int32(from), int32(to))
}

// set sets the standby's state to st.
func (sb *standby) set(st standbyState) { sb.state.Store(int32(st)) }

// serverName names the server and database of cfg for errors: host:port/database, never
// the user or the password.
func serverName(cfg *pgconn.Config) string {
	return cfg.Host + ":" + strconv.Itoa(int(cfg.Port)) + "/" + cfg.Database
}

// active reports whether the Store reads from standbys.
func (r *replicas) active() bool { return len(r.standbys) > 0 }

// skipped reports whether reads skip the standby at now: refused, or after a failure.
func (sb *standby) skipped(now int64) bool {
	return sb.load() == refused || sb.skipUntil.Load() > now
}

// pause skips the standby from now, after a failure, for standbyRetryFirst, doubling with
// each failure in a row up to standbyRetryMost. Of the reads that fail on it at once, one
// counts.
func (sb *standby) pause(now int64) {
	until := sb.skipUntil.Load()
	if until > now {
		return
	}
	n := sb.failures.Load() + 1
	d := min(standbyRetryFirst<<min(n-1, retryDoublings), standbyRetryMost)
	if sb.skipUntil.CompareAndSwap(until, now+int64(d)) { // the one failure of its moment that counts
		sb.failures.Add(1)
	}
}

// retryDoublings bounds the doubling of pause (standbyRetryFirst << 8 is past
// standbyRetryMost), so that the shift never overflows.
const retryDoublings = 8

// pauseLongest skips the standby from now for standbyRetryMost, after a query on it ran out
// of standbyAttempt: each query that tries a standby not answering at all costs a read the
// whole attempt.
func (sb *standby) pauseLongest(now int64) {
	sb.failures.Store(retryDoublings + 1) // past the doubling: the next pause is standbyRetryMost as well
	sb.skipUntil.Store(now + int64(standbyRetryMost))
}

// failed pauses the standby after a query on it failed just now: for standbyRetryMost when
// the query ran out of its attempt (timedOut), else for its next pause.
func (sb *standby) failed(timedOut bool) {
	now := time.Now().UnixNano()
	if timedOut {
		sb.pauseLongest(now)
		return
	}
	sb.pause(now)
}

// failedWith pauses the standby after a check of it failed with err, as failed does.
func (sb *standby) failedWith(err error) {
	sb.failed(pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded))
}

// answered notes that the standby answered a query: its next failure is paused for the
// shortest time again.
func (sb *standby) answered() {
	if sb.failures.Load() != 0 {
		sb.failures.Store(0)
	}
}

// open makes a pool for each standby of configs and checks it: it is in recovery, it is a
// copy of the primary's database, and it has replayed the primary's schema, version want
// (waiting for it up to standbyOpenWait). A standby that cannot be reached (unreachable) is
// reported, paused as a failed one, and left unchecked, for checkLate. On an error the
// caller closes the pools made so far.
func (r *replicas) open(ctx context.Context, want int) error {
	if len(r.configs) == 0 {
		return nil
	}
	primary, err := databaseIdentity(ctx, r.primary)
	if err != nil {
		return fmt.Errorf("pgstore: open: the primary's identity: %w", err)
	}
	r.identity, r.version = primary, want
	wait := cmp.Or(r.hooks.standbyOpenWait, standbyOpenWait)
	for _, cfg := range r.configs {
		sb := &standby{name: serverName(&cfg.ConnConfig.Config)}
		if sb.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
			return fmt.Errorf("pgstore: open: standby %s: %w", sb.name, err)
		}
		r.standbys = append(r.standbys, sb)
		err := sb.check(ctx, primary, want, wait)
		switch {
		case err == nil:
			sb.set(checked)
		case ctx.Err() == nil && unreachable(err):
			sb.failedWith(err)
			r.tell(fmt.Errorf("%w; reads skip it until it answers, and check it then", err))
		default:
			return err
		}
	}
	return nil
}

// checkLate checks sb, a standby open could not reach, as open checks the others, and
// reports whether reads may take its answers. One read at a time checks it; the others
// skip it meanwhile. A standby found to be no standby of the primary's database, or at a
// newer schema, is refused, and reported. Any other finding leaves it unchecked and paused
// as a failed standby, to be checked again when it is tried again; the first that is not
// unreachable (what open would have failed on) is reported too.
func (r *replicas) checkLate(ctx context.Context, sb *standby) bool {
	was := sb.load()
	switch {
	case was == checked:
		return true
	case was != unchecked && was != reported, !sb.move(was, checking):
		return false
	}
	actx, cancel := attempt(ctx)
	v, err := sb.checkOnce(actx, r.identity)
	cancel()
	next, finding := was, error(nil)
	switch {
	case err == nil && v == r.version:
		next = checked
	case err == nil && v > r.version:
		next, finding = refused, fmt.Errorf("%w; it is never read from", sb.tooNew(v, r.version))
	case ctx.Err() != nil: // the read's own end: no finding
	case err == nil:
		sb.pause(time.Now().UnixNano()) // behind the schema: it is replaying it, or will
	case errors.Is(err, errNotStandby) || errors.Is(err, errOtherDatabase):
		next, finding = refused, fmt.Errorf("%w; it is never read from", err)
	default:
		sb.failedWith(err)
		if !unreachable(err) && was == unchecked { // what open would have failed on
			next, finding = reported, fmt.Errorf("%w; reads skip it, and check it again later", err)
		}
	}
	sb.set(next) // before the report: who is told finds the standby as it says
	if finding != nil {
		r.tell(finding)
	}
	return next == checked
}

// tell hands err, which names a standby set aside and why, to WithStandbyReport's
// function, if any.
func (r *replicas) tell(err error) {
	if r.report != nil {
		r.report(err)
	}
}

// close closes the standbys' pools.
func (r *replicas) close() {
	for _, sb := range r.standbys {
		sb.pool.Close()
	}
}
