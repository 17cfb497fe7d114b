#!/bin/sh
# bench.sh runs the SQLite store's benchmarks the way BENCHMARKS.md reports them, then prints
# the benchstat summary and the ratio behind each target, from benchstat's medians of wall
# time (sec/op) and of process CPU time (cpu-sec/op, steadier on a shared machine).
#
#	sqlitestore/bench.sh [out-file]	# default /tmp/sqlitestore-bench.txt; COUNT=6 samples
#
# The test binary is built once and run COUNT times with -count 1, so every benchmark's
# samples are spread over the whole run and both sides of a ratio see the same stretches of
# load. The desks are database files cached in $TMPDIR (built on the first run: about a
# minute for the 1,000,000-row desk). benchstat: go install golang.org/x/perf/cmd/benchstat@latest.
set -eu
cd "$(dirname "$0")/.."
out=${1:-/tmp/sqlitestore-bench.txt}
count=${COUNT:-6}
benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/sqlitestore.test" ./sqlitestore
: >"$out"
i=0
while [ "$i" -lt "$count" ]; do
	"$dir/sqlitestore.test" -test.run '^$' -test.bench '^(BenchmarkChannel|BenchmarkChannelAsides|BenchmarkAppendBatch|BenchmarkAppendKey|BenchmarkAppendBatchKey|BenchmarkLookupKeys)$' \
		-test.benchmem -test.count 1 | tee -a "$out"
	i=$((i + 1))
done
"$benchstat" "$out"
echo
"$benchstat" -format csv "$out" 2>/dev/null | awk -F, '
	$2 == "sec/op" || $2 == "cpu-sec/op" { unit = $2; next }
	/^,/ || NF < 2 { unit = ""; next }
	unit != "" { name = $1; sub(/-[0-9]+$/, "", name); v[unit, name] = $2 }
	function ratio(label, num, den, target) {
		if (!(("sec/op", num) in v) || !(("sec/op", den) in v)) return
		printf "%-52s %8.2fx wall %8.2fx cpu   target %s\n", label,
			v["sec/op", num] / v["sec/op", den], v["cpu-sec/op", num] / v["cpu-sec/op", den], target
	}
	END {
		split("1000 100000 1000000", sizes, " ")
		for (i = 1; i <= 3; i++) {
			c = "Channel/rows=" sizes[i] "/impl="
			ratio("1. LoadAll / Project, " sizes[i] " rows", c "LoadAll", c "Project", i == 2 ? ">= 20x" : "-")
			ratio("2. SQL-window / Project, " sizes[i] " rows", c "SQL-window", c "Project", i == 1 ? ">= 0.5x" : "> 1x")
			ratio("2. SQL-correlated / Project, " sizes[i] " rows", c "SQL-correlated", c "Project", i == 1 ? ">= 0.5x" : "> 1x")
			ratio("2. SQL-bounded / Project, " sizes[i] " rows", c "SQL-bounded", c "Project", i == 1 ? ">= 0.5x" : "> 1x")
		}
		ratio("3. Project 1,000,000 / 1,000 rows", "Channel/rows=1000000/impl=Project", "Channel/rows=1000/impl=Project", "<= 1.5x")
		ratio("4. AppendBatch / RawInsert, per row", "AppendBatch/impl=AppendBatch", "AppendBatch/impl=RawInsert", "<= 1.5x")
		ratio("5. Project for an outsider, 20% asides / none", "ChannelAsides/rows=100000/asides=20", "ChannelAsides/rows=100000/asides=0", "<= 1.3x")
		ratio("6. Append with a new key / without", "AppendKey/key=new", "AppendKey/key=none", "<= 1.2x")
		ratio("7. AppendBatch, 1,000 new keys / no keys", "AppendBatchKey/key=new", "AppendBatchKey/key=none", "-")
		ratio("8. first import / re-import (AppendBatch)", "AppendBatchKey/key=first", "AppendBatchKey/key=present", ">= 3x")
	}'
