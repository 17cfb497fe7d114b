#!/bin/sh
# bench-import.sh runs the command-line tool's benchmarks the way BENCHMARKS.md reports them
# (issue 5, Performance), then prints the medians, the ratios and PASS or FAIL for each target:
#
#   import: `transcript import` of ROWS messages vs the sqlite3 shell's `.import` of the same
#           rows into the same table shape, within 3x;
#   view:   `transcript view` at the head of a ROWS-row desk vs a 1,000-row desk, within 1.5x.
#
#	scripts/bench-import.sh [out-file]	# default /tmp/bench-import.txt
#
# Environment: ROWS (default 1000000), PASSES (default 5), VIEWTIME per view sample (default
# 1s), DATA, a directory for the generated rows and desks, kept and reused between runs
# (default: a temporary directory, removed at exit).
#
# The machine this runs on may be shared, so baseline and candidate are interleaved: each pass
# runs the sqlite3 import and the transcript import one after the other (alternating which goes
# first), then the view benchmarks on both desks; the figures are medians over the passes. The
# test binary and the command are built once. Needs the sqlite3 shell (apt-get install sqlite3).
set -eu
cd "$(dirname "$0")/.."
out=${1:-/tmp/bench-import.txt}
rows=${ROWS:-1000000}
passes=${PASSES:-5}
viewtime=${VIEWTIME:-1s}

command -v sqlite3 >/dev/null || { echo "bench-import.sh: the sqlite3 shell is needed: apt-get install sqlite3" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=${DATA:-$tmp/data}
mkdir -p "$data"
go build -o "$tmp/transcript" ./cmd/transcript
go test -c -o "$tmp/cmd.test" ./cmd/transcript
export TRANSCRIPT_E2E_BIN="$tmp/transcript" TRANSCRIPT_BENCH_DIR="$data" TRANSCRIPT_BENCH_ROWS="$rows"

{
	echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(go version) sqlite3 $(sqlite3 --version | cut -d' ' -f1)"
	echo "# ROWS=$rows PASSES=$passes VIEWTIME=$viewtime, load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
} >"$out"

# bench runs the test binary once (from the package's directory, as go test does).
bench() {
	(cd cmd/transcript && "$tmp/cmd.test" -test.run '^$' -test.count 1 "$@") | tee -a "$out"
}

i=0
while [ "$i" -lt "$passes" ]; do
	if [ $((i % 2)) -eq 0 ]; then first=sqlite3 second=transcript; else first=transcript second=sqlite3; fi
	bench -test.bench "^BenchmarkImport\$/^rows=$rows\$/^impl=$first\$" -test.benchtime 1x
	bench -test.bench "^BenchmarkImport\$/^rows=$rows\$/^impl=$second\$" -test.benchtime 1x
	bench -test.bench '^BenchmarkView$' -test.benchtime "$viewtime"
	echo "# load average after pass $((i + 1)): $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" | tee -a "$out"
	i=$((i + 1))
done

benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}
if [ -x "$benchstat" ]; then
	echo
	"$benchstat" "$out"
fi

# Medians per benchmark and unit, then the ratios behind the targets.
echo
grep '^Benchmark' "$out" | awk '
	{
		name = $1; sub(/-[0-9]+$/, "", name)
		for (f = 3; f < NF; f += 2) { n = ++count[name, $(f + 1)]; v[name, $(f + 1), n] = $f; units[$(f + 1)] = 1; names[name] = 1 }
	}
	function median(name, unit,    n, i, j, t, a) {
		n = count[name, unit]
		if (n == 0) return -1
		for (i = 1; i <= n; i++) a[i] = v[name, unit, i] + 0
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function ratio(label, num, den, unit, target,    a, b, r) {
		a = median(num, unit); b = median(den, unit)
		if (a < 0 || b <= 0) return
		r = a / b
		printf "%-58s %8.2fx  target <= %sx  %s\n", label " (" unit ")", r, target, r <= target ? "PASS" : "FAIL"
	}
	END {
		printf "%-60s %3s %14s %9s %9s\n", "median of", "n", "ns/op", "cpu-s/op", "msgs/s"
		for (name in names) {
			c = median(name, "cpu-s/op"); m = median(name, "msgs/s")
			printf "%-60s %3d %14.0f %9s %9s\n", name, count[name, "ns/op"], median(name, "ns/op"),
				c < 0 ? "-" : sprintf("%.3f", c), m < 0 ? "-" : sprintf("%.0f", m) | "sort"
		}
		close("sort")
		print ""
		rows = "'"$rows"'"
		i = "BenchmarkImport/rows=" rows "/impl="
		ratio("import: transcript / sqlite3 .import", i "transcript", i "sqlite3", "ns/op", 3)
		ratio("import: transcript / sqlite3 .import", i "transcript", i "sqlite3", "cpu-s/op", 3)
		for (view = 1; view <= 2; view++) for (e = 1; e <= 2; e++) {
			vn = view == 1 ? "channel" : "thread"; en = e == 1 ? "run" : "process"
			ratio("view " vn ", exec=" en ": " rows " / 1000 rows", "BenchmarkView/rows=" rows "/view=" vn "/exec=" en, "BenchmarkView/rows=1000/view=" vn "/exec=" en, "ns/op", 1.5)
		}
	}' | tee -a "$out.summary"
