#!/bin/sh
# bench-mcp.sh runs the MCP benchmarks (deskmcp's BenchmarkReadDeskNoNews, cmd/transcript's
# BenchmarkMCPReadDeskStdio) the way BENCHMARKS.md reports them, then prints the benchstat
# summary and the ratio behind issue 13's target, from benchstat's medians.
#
#	scripts/bench-mcp.sh [out-file]			# default /tmp/bench-mcp.txt; SQLite only
#	scripts/pgtest.sh scripts/bench-mcp.sh [out-file]	# PostgreSQL too
#
# Environment: COUNT samples per benchmark (default 10), BENCHTIME per sample (default 1s),
# MAXWAIT seconds to wait for a quiet machine before each pass (default 120; 0 disables).
#
# As scripts/bench.sh: the test binaries are built once and run COUNT times with -count 1, so
# that every sub-benchmark's samples are spread over the whole run and both sides of a ratio
# see the same stretches of load on a shared machine.
# benchstat: go install golang.org/x/perf/cmd/benchstat@latest (not a module dependency).
set -eu
cd "$(dirname "$0")/.."
out=${1:-/tmp/bench-mcp.txt}
count=${COUNT:-10}
benchtime=${BENCHTIME:-1s}
maxwait=${MAXWAIT:-120}
benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}

. scripts/quiet.sh

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/deskmcp.test" ./deskmcp
go test -c -o "$dir/cmd.test" ./cmd/transcript
go build -o "$dir/transcript" ./cmd/transcript
: >"$out"
i=0
while [ "$i" -lt "$count" ]; do
	quiet
	echo "# pass $((i + 1)) of $count; load average $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out"
	"$dir/deskmcp.test" -test.run '^$' -test.bench ReadDeskNoNews -test.benchmem -test.count 1 \
		-test.benchtime "$benchtime" | tee -a "$out"
	TRANSCRIPT_E2E_BIN="$dir/transcript" "$dir/cmd.test" -test.run '^$' -test.bench MCPReadDeskStdio \
		-test.benchmem -test.count 1 -test.benchtime "$benchtime" | tee -a "$out"
	i=$((i + 1))
done
"$benchstat" "$out"
echo
"$benchstat" -format csv "$out" 2>/dev/null | awk -F, '
	/^,/ { unit = $2; next }
	NF < 2 { unit = ""; next }
	unit != "" { name = $1; sub(/-[0-9]+$/, "", name); v[unit, name] = $2 }
	function has(u, n) { return ((u, n) in v) }
	function ratio(label, num, den, target) {
		if (!has("sec/op", num) || !has("sec/op", den)) return
		printf "%-56s %9.2fx   %s\n", label, v["sec/op", num] / v["sec/op", den], target
	}
	END {
		printf "%-56s %10s   %s\n", "ratio of medians", "", "target"
		split("sqlite postgres", stores, " ")
		for (i = 1; i <= 2; i++) {
			s = "ReadDeskNoNews/store=" stores[i] "/impl="
			ratio(stores[i] ": server / (Prepare + state read and write)", s "server", s "prepare/write", "<= 1.5x")
			if (has("server/prepare", s "paired"))
				printf "%-56s %9.2fx   %s\n", stores[i] ": paired, median of the per-run ratios", v["server/prepare", s "paired"], "<= 1.5x"
			ratio(stores[i] ": server / (Prepare + state read, no write)", s "server", s "prepare/nowrite", "(reported)")
			ratio(stores[i] ": client and server / server", s "client", s "server", "(reported)")
		}
		if (has("sec/op", "MCPReadDeskStdio"))
			printf "%-56s %9.3g ms   %s\n", "stdio round trip, read_desk with no news", v["sec/op", "MCPReadDeskStdio"] * 1e3, "(reported)"
	}'
