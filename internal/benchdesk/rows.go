package benchdesk

import (
	"os"
	"strconv"
	"testing"
)

// RowsEnv names the variable that makes the benchmarks' desks small: with
// TRANSCRIPT_BENCH_ROWS=1000 no desk a benchmark builds holds more than 1,000 rows, so that
// `make bench-once` runs every benchmark once in seconds to show that it still builds, sets
// up and passes its own checks. The figures of such a run mean nothing: a benchmark keeps
// its name (rows=1000000) whatever its desk holds. (The command's benchmarks,
// cmd/transcript, take the variable as the size of their desk, 1,000,000 when unset.)
const RowsEnv = "TRANSCRIPT_BENCH_ROWS"

// Rows returns n, the rows of a desk a benchmark builds, or TRANSCRIPT_BENCH_ROWS when that
// is set and smaller. A value that is not a number of rows of at least 1,000 fails tb.
func Rows(tb testing.TB, n int) int {
	tb.Helper()
	s := os.Getenv(RowsEnv)
	if s == "" {
		return n
	}
	limit, err := strconv.Atoi(s)
	if err != nil || limit < 1000 {
		tb.Fatalf("%s=%q: want a number of rows, at least 1000", RowsEnv, s)
	}
	return min(n, limit)
}
