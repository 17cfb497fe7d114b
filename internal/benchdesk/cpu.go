package benchdesk

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cpuTime returns the CPU time the process's threads have run for, from Linux's
// /proc/self/task/*/schedstat (nanoseconds on a CPU), or false where that is unavailable.
func cpuTime() (time.Duration, bool) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, false
	}
	var total time.Duration
	for _, task := range tasks {
		stat, err := os.ReadFile("/proc/self/task/" + task.Name() + "/schedstat")
		if err != nil {
			continue // the thread exited
		}
		ran, _, _ := strings.Cut(string(stat), " ")
		ns, err := strconv.ParseInt(ran, 10, 64)
		if err != nil {
			return 0, false
		}
		total += time.Duration(ns)
	}
	return total, true
}

// CPU starts measuring the CPU time of a benchmark's loop; the function it returns,
// called after the loop, reports it as cpu-ns/op. That is every thread's CPU time, the
// garbage collector's on the other core included, and unlike ns/op it does not count time
// spent waiting for a CPU: on a machine shared with other work it is the steadier figure.
// Where /proc is missing it reports nothing.
func CPU(b *testing.B) (report func()) {
	start, ok := cpuTime()
	return func() {
		end, ok2 := cpuTime()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
