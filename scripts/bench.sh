#!/bin/sh
# bench.sh runs the Project benchmarks the way BENCHMARKS.md reports them, then prints the
# benchstat summary and the ratio behind each target, from benchstat's medians.
#
#	scripts/bench.sh [out-file]	# default /tmp/bench.txt
#
# Environment: COUNT samples per benchmark (default 10), BENCHTIME per sample (default 500ms),
# MAXWAIT seconds to wait for a quiet machine before each pass (default 120; 0 disables).
#
# The test binary is built once and run COUNT times with -count 1, rather than once with
# -count COUNT, so that every sub-benchmark's samples are spread over the whole run: on a
# shared machine both sides of a ratio then see the same stretches of load. Before each pass
# it waits, up to MAXWAIT seconds, until other processes leave the CPUs at least 90% idle.
# benchstat: go install golang.org/x/perf/cmd/benchstat@latest (not a module dependency).
set -eu
cd "$(dirname "$0")/.."
out=${1:-/tmp/bench.txt}
count=${COUNT:-10}
benchtime=${BENCHTIME:-500ms}
maxwait=${MAXWAIT:-120}
benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}

. scripts/quiet.sh

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/transcript.test" .
: >"$out"
i=0
while [ "$i" -lt "$count" ]; do
	quiet
	"$dir/transcript.test" -test.run '^$' -test.bench . -test.benchmem -test.count 1 \
		-test.benchtime "$benchtime" | tee -a "$out"
	i=$((i + 1))
done
"$benchstat" "$out"
echo
"$benchstat" -format csv "$out" 2>/dev/null | awk -F, '
	$2 == "sec/op" || $2 == "cpu-sec/op" || $2 == "allocs/op" { unit = $2; next }
	/^,/ || NF < 2 { unit = ""; next }
	unit != "" { name = $1; sub(/-[0-9]+$/, "", name); v[unit, name] = $2 }
	function ratio(label, num, den, target) {
		if (!(("sec/op", num) in v) || !(("sec/op", den) in v)) return
		printf "%-46s %9.2fx", label, v["sec/op", num] / v["sec/op", den]
		if (("cpu-sec/op", num) in v && ("cpu-sec/op", den) in v)
			printf " %9.2fx", v["cpu-sec/op", num] / v["cpu-sec/op", den]
		printf "   %s\n", target
	}
	function allocs(label, num, den, target) {
		if (!(("allocs/op", num) in v) || !(("allocs/op", den) in v)) return
		printf "%-46s %9.2fx %10s   %s\n", label, v["allocs/op", num] / v["allocs/op", den], "", target
	}
	END {
		printf "%-46s %10s %10s   %s\n", "ratio of medians", "sec/op", "cpu-sec/op", "target"
		n = "ChannelVsNaive/rows=100000/impl="
		ratio("1. NaivePaged / Project (head)", n "NaivePaged", n "Project", ">= 50x")
		ratio("1. NaiveClone / Project (head)", n "NaiveClone", n "Project", ">= 50x")
		ratio("1. NaivePaged / Project (64 heads)", n "NaivePaged", n "Project-64heads", ">= 50x")
		ratio("1. NaiveClone / Project (64 heads)", n "NaiveClone", n "Project-64heads", ">= 50x")
		d = "ChannelDeskSize/at="
		ratio("2. 1,000,000 / 10,000 rows (head)", d "head/rows=1000000", d "head/rows=10000", "<= 1.2x")
		ratio("2. 1,000,000 / 10,000 rows (64 heads)", d "64heads/rows=1000000", d "64heads/rows=10000", "<= 1.2x")
		f = "FullScan/impl="
		ratio("3. Project (growing) / Copy4x512", f "Project-growing", f "Copy4x512", "<= 3x")
		ratio("3. Project (growing) / Copy1x2048", f "Project-growing", f "Copy1x2048", "<= 3x")
		ratio("3. Project (fixed) / Copy4x512", f "Project-fixed", f "Copy4x512", "<= 3x")
		ratio("3. Project (fixed) / Copy1x2048", f "Project-fixed", f "Copy1x2048", "<= 3x")
		ratio("   channel view, same rows / Copy4x512", f "ProjectChannel-growing", f "Copy4x512", "none")
		s = "ScanAllocs/plan="
		allocs("4. allocs/op: fixed, 2048 / 512 rows", s "fixed/rows=2048", s "fixed/rows=512", "well under the rows ratio, 4x")
		allocs("4. allocs/op: growing, 1924 / 60 rows", s "growing/rows=1924", s "growing/rows=60", "well under the rows ratio, 32x")
		r = "ReadSize/view="
		split("channel-w30 channel-w10 dense-thread-w30 dense-thread-w10", views, " ")
		for (i = 1; i <= 4; i++)
			ratio("5. " views[i] ": fixed / growing", r views[i] "/plan=fixed", r views[i] "/plan=growing", "> 1x: growing reads win")
	}'
