#!/bin/sh
# bench-server.sh runs the service's benchmarks (server/bench_*_test.go: BenchmarkViewLoopback,
# BenchmarkFanOut) the way BENCHMARKS.md reports them, then prints the benchstat summary and
# the ratio behind each of issue 11's targets, from benchstat's medians.
#
#	scripts/bench-server.sh [out-file]			# default /tmp/bench-server.txt; SQLite only
#	scripts/pgtest.sh scripts/bench-server.sh [out-file]	# the view on PostgreSQL too
#
# Environment: COUNT samples per benchmark (default 10), BENCHTIME per sample (default 1s),
# BENCH the benchmarks (default 'ViewLoopback|FanOut'), MAXWAIT seconds to wait for a quiet
# machine before each pass (default 120; 0 disables).
#
# As scripts/bench.sh: the test binary is built once and run COUNT times with -count 1, so that
# every sub-benchmark's samples are spread over the whole run and both sides of a ratio see
# the same stretches of load on a shared machine; before each pass it waits, up to MAXWAIT
# seconds, until other processes leave the CPUs at least 90% idle.
# benchstat: go install golang.org/x/perf/cmd/benchstat@latest (not a module dependency).
set -eu
cd "$(dirname "$0")/.."
out=${1:-/tmp/bench-server.txt}
count=${COUNT:-10}
benchtime=${BENCHTIME:-1s}
bench=${BENCH:-ViewLoopback|FanOut}
maxwait=${MAXWAIT:-120}
benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}

. scripts/quiet.sh

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/server.test" ./server
: >"$out"
i=0
while [ "$i" -lt "$count" ]; do
	quiet
	echo "# pass $((i + 1)) of $count; load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
	"$dir/server.test" -test.run '^$' -test.bench "$bench" -test.benchmem -test.count 1 \
		-test.benchtime "$benchtime" | tee -a "$out"
	i=$((i + 1))
done
"$benchstat" "$out"
echo
"$benchstat" -format csv "$out" 2>/dev/null | awk -F, '
	/^,/ { unit = $2; next }
	NF < 2 { unit = ""; next }
	unit != "" { name = $1; sub(/-[0-9]+$/, "", name); v[unit, name] = $2 }
	function has(u, n) { return ((u, n) in v) }
	function ratio(label, unit, num, den, target) {
		if (!has(unit, num) || !has(unit, den)) return
		printf "%-58s %9.2fx   %s\n", label, v[unit, num] / v[unit, den], target
	}
	# marginal is the CPU of one delivered event beyond the append: (cpu(n) - cpu(0)) / n.
	function marginal(n) { return (v["cpu-sec/op", f "streams=" n] - v["cpu-sec/op", f "streams=0"]) / n }
	function value(label, unit, name, scale, suffix) {
		if (!has(unit, name)) return
		printf "%-58s %9.3g%s\n", label, v[unit, name] * scale, suffix
	}
	END {
		printf "%-58s %10s   %s\n", "ratio of medians", "", "target"
		split("sqlite postgres", stores, " ")
		for (i = 1; i <= 2; i++) {
			s = "ViewLoopback/store=" stores[i] "/impl="
			ratio("1. " stores[i] ": http / in-process, time", "sec/op", s "http", s "in-process", "<= 2x")
			ratio("1. " stores[i] ": http / in-process, CPU", "cpu-sec/op", s "http", s "in-process", "<= 2x")
			ratio("1. " stores[i] ": http-tokencache / in-process, time", "sec/op", s "http-tokencache", s "in-process", "(the token cache)")
			ratio("1. " stores[i] ": http-tokencache / in-process, CPU", "cpu-sec/op", s "http-tokencache", s "in-process", "(the token cache)")
			if (has("http/in-process", s "paired"))
				printf "%-58s %9.2fx   %s\n", "1. " stores[i] ": paired, median of the per-run ratios", v["http/in-process", s "paired"], "<= 2x"
		}
		f = "FanOut/"
		ratio("2. CPU per event, 1000 / 10 streams", "cpu-sec/event", f "streams=1000", f "streams=10", "<= 1.5x")
		ratio("2. CPU per event, 1000 / 100 streams", "cpu-sec/event", f "streams=1000", f "streams=100", "(none)")
		if (has("cpu-sec/op", f "streams=0") && has("cpu-sec/op", f "streams=10") && has("cpu-sec/op", f "streams=1000")) {
			printf "%-58s %9.2fx   %s\n", "2. beyond the append: (cpu(n)-cpu(0))/n, 1000 / 10", marginal(1000) / marginal(10), "(the delivery alone)"
			printf "%-58s %9.3g µs, %.3g µs, %.3g µs\n", "   the same per event at 10, 100, 1000 streams", marginal(10) * 1e6, marginal(100) * 1e6, marginal(1000) * 1e6
		}
		for (n = 10; n <= 1000; n *= 10) {
			value("2. store reads per append, " n " streams", "store-reads/append", f "streams=" n, 1, "   target <= 3")
			value("   of them by the tail", "tail-reads/append", f "streams=" n, 1, "")
		}
		value("3. p50 append -> event, 100 streams", "p50-ms", f "streams=100", 1, " ms   (reported)")
		value("3. p99 append -> event, 100 streams", "p99-ms", f "streams=100", 1, " ms   (reported)")
	}'
