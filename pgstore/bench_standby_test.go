package pgstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
)

// The shape of BenchmarkStandby's read-heavy run: 8 readers project the channel view of a
// desk of standbyDeskRows rows, standbyProjections times each, while 4 writers append
// standbyAppends rows each to it (a projection for every tenth of a row), or half as many
// (a twentieth), all through one Store, as the service does.
const (
	standbyDeskRows    = 2_000
	standbyReaders     = 8
	standbyProjections = 100
	standbyWriters     = 4
	standbyAppends     = 20
)

// BenchmarkStandby measures where a read-heavy load's work goes, on a cluster of its own:
// a primary and one streaming standby, both on this machine, committing synchronously.
//
//   - run/appends=N/reads=primary and .../reads=standby: one op is the fixed run above, N
//     appends in all, through a Store that reads on the primary, or one that reads from
//     the standby (WithStandbys). primary-cpu-ms/op is the CPU time the primary's
//     processes used during the run (pgtest.Server.CPUTime: /proc, the postmaster's own
//     and its children's, live or exited); standby-cpu-ms/op the standby's; projections/s
//     the readers' projections over the run's wall time; primary-fallbacks/op the reads
//     the standby could not answer. .../reads=none is the writers alone: the primary's
//     floor.
//   - projection/path=primary and projection/path=standby: one channel view of a desk that
//     does not change, through each of those Stores: what the routing costs a read when
//     the standby does not lag. projection/path=standby-alone reads through a read-only
//     Store on the standby: the standby's own cost, without the routing.
func BenchmarkStandby(b *testing.B) {
	primary := pgtest.Own(b, "pgstore")
	standby := primary.Standby(b)
	ctx := context.Background()
	if _, err := connect(b, primary.DSN).Exec(ctx, "CREATE DATABASE bench"); err != nil {
		b.Fatal(err)
	}
	primaryDSN := withPoolSize(pgtest.WithDatabase(b, primary.DSN, "bench"), 32)
	pgtest.WaitForDatabase(b, pgtest.WithDatabase(b, standby.DSN, "bench"))
	standbyDSN := withPoolSize(pgtest.WithDatabase(b, standby.DSN, "bench"), 32)
	stores := map[string]*pgstore.Store{
		"primary": mustOpen(b, primaryDSN),
		"standby": mustOpen(b, primaryDSN, pgstore.WithStandbys(standbyDSN)),
	}
	rows := streamDesk(standbyDeskRows, 0)
	for i := range rows {
		rows[i].Seq = 0 // the parents are the rows' Seqs on a new desk
	}
	for _, desk := range []string{"busy", "static"} {
		if err := stores["primary"].AppendBatch(ctx, desk, rows); err != nil {
			b.Fatal(err)
		}
	}
	caughtUp(b, primaryDSN, standbyDSN)

	for _, appends := range []int{standbyAppends, standbyAppends / 2} {
		for _, reads := range []string{"primary", "standby", "none"} {
			b.Run(fmt.Sprintf("run/appends=%d/reads=%s", standbyWriters*appends, reads), func(b *testing.B) {
				st, readers := stores[reads], standbyReaders
				if reads == "none" { // the writers alone: the primary's floor
					st, readers = stores["primary"], 0
				}
				_, fallbacks := pgstore.StandbyReads(st)
				var primaryCPU, standbyCPU, wall time.Duration
				for b.Loop() {
					p0, s0 := cpuTime(b, primary), cpuTime(b, standby)
					start := time.Now()
					readHeavyRun(b, st, readers, appends)
					wall += time.Since(start)
					primaryCPU += cpuTime(b, primary) - p0
					standbyCPU += cpuTime(b, standby) - s0
				}
				n := float64(b.N)
				_, after := pgstore.StandbyReads(st)
				b.ReportMetric(float64(primaryCPU.Milliseconds())/n, "primary-cpu-ms/op")
				b.ReportMetric(float64(standbyCPU.Milliseconds())/n, "standby-cpu-ms/op")
				b.ReportMetric(n*float64(readers*standbyProjections)/wall.Seconds(), "projections/s")
				if reads == "standby" {
					b.ReportMetric(float64(after-fallbacks)/n, "primary-fallbacks/op")
				}
			})
		}
	}
	stores["standby-alone"] = mustOpen(b, standbyDSN) // once the standby has the schema
	for _, path := range []string{"primary", "standby", "standby-alone"} {
		b.Run("projection/path="+path, func(b *testing.B) {
			st := stores[path]
			q := transcript.Query{Conversation: transcript.Conversation{Desk: "static"}}
			for b.Loop() {
				if _, err := transcript.Project(ctx, st.Log("static"), q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// readHeavyRun is one fixed run of BenchmarkStandby through st: readers and the writers
// at once, until each has done its share.
func readHeavyRun(b testing.TB, st *pgstore.Store, readers, appends int) {
	ctx := context.Background()
	q := transcript.Query{Conversation: transcript.Conversation{Desk: "busy"}}
	var wg sync.WaitGroup
	errs := make(chan error, readers+standbyWriters)
	for range readers {
		wg.Go(func() {
			for range standbyProjections {
				if _, err := transcript.Project(ctx, st.Log("busy"), q); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for w := range standbyWriters {
		wg.Go(func() {
			author := transcript.Agent(fmt.Sprint("writer-", w), "")
			for i := range appends {
				if _, err := st.Append(ctx, "busy", transcript.Message{Author: author, Content: fmt.Sprint("row ", i)}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// cpuTime is server's CPU time so far.
func cpuTime(b *testing.B, server *pgtest.Server) time.Duration {
	b.Helper()
	d, err := server.CPUTime()
	if err != nil {
		b.Fatal(err)
	}
	return d
}
