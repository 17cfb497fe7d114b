#!/usr/bin/env bash
# pgbench.sh runs the pgstore benchmarks the way BENCHMARKS.md reports them, against a
# throwaway PostgreSQL server (scripts/pgtest.sh), then prints the benchstat summary and the
# ratio behind each target, from benchstat's medians.
#
#	scripts/pgbench.sh [out-file]	# default /tmp/pgbench.txt; COUNT=6 samples per benchmark
#	PGTEST_DURABLE=0 scripts/pgbench.sh	# a server that skips fsync, as make test's does
#
# The server fsyncs its commits (PGTEST_DURABLE=1), as a production server does: appends then
# pay for a WAL flush, which a desk's lock is held across and which concurrent appends to
# other desks share (group commit).
# The test binary is built once and run COUNT times with -count 1, rather than once with
# -count COUNT, so that every benchmark's samples are spread over the whole run: on a shared
# machine both sides of a ratio then see the same stretches of load. The desks (up to
# 1,000,000 rows) are loaded with COPY by the first run and kept for the others
# (PGSTORE_BENCH_KEEP=1); the server and its data go when the script ends.
# BENCH selects benchmarks (default: all of pgstore's). benchstat:
# go install golang.org/x/perf/cmd/benchstat@latest (not a module dependency).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/pgbench.txt}
export COUNT=${COUNT:-6}
export PGTEST_DURABLE=${PGTEST_DURABLE:-1}
export BENCH=${BENCH:-.}
export BENCHSTAT=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}
export OUT=$out
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/pgstore.test" ./pgstore
export TESTBIN=$dir/pgstore.test

exec bash scripts/pgtest.sh bash -c '
set -euo pipefail
export PGSTORE_BENCH_KEEP=1
: >"$OUT"
for i in $(seq 1 "$COUNT"); do
	"$TESTBIN" -test.run "^\$" -test.bench "$BENCH" -test.benchmem -test.count 1 | tee -a "$OUT"
done
"$BENCHSTAT" "$OUT"
echo
"$BENCHSTAT" -format csv "$OUT" 2>/dev/null | awk -F, '"'"'
	$2 == "sec/op" || $2 == "sql/project" || $2 == "primary-cpu-ms/op" { unit = $2; next }
	/^,/ || NF < 2 { unit = ""; next }
	unit == "primary-cpu-ms/op" { name = $1; sub(/-[0-9]+$/, "", name); cpu[name] = $2; next }
	unit != "" { name = $1; sub(/-[0-9]+$/, "", name); v[name] = $2; if (unit == "sql/project") paired[name] = $2 }
	function ratio(label, num, den, target) { ratioIn(v, label, num, den, target) }
	function ratioIn(m, label, num, den, target) {
		if (!(num in m) || !(den in m)) return
		printf "%-66s %10.2fx   target %s\n", label, m[num] / m[den], target
	}
	# best returns the name of the fastest hand-written SQL at rows n.
	function best(n,    impl, name, b) {
		split("SQLWindow SQLLateral SQLExists SQLBounded", impl, " ")
		for (i = 1; i <= 4; i++) {
			name = "Channel/rows=" n "/impl=" impl[i]
			if ((name in v) && (b == "" || v[name] < v[b])) b = name
		}
		return b
	}
	END {
		c = "Channel/rows="
		ratio("1. LoadAll / Project, 100,000 rows", c "100000/impl=LoadAll", c "100000/impl=Project", ">= 20x")
		ratio("   LoadAll / Project, 1,000 rows", c "1000/impl=LoadAll", c "1000/impl=Project", "(information)")
		ratio("   LoadAll / Project, 1,000,000 rows", c "1000000/impl=LoadAll", c "1000000/impl=Project", "(information)")
		split("1000 100000 1000000", sizes, " ")
		for (s = 1; s <= 3; s++) {
			b = best(sizes[s])
			if (b == "") continue
			target = sizes[s] == 1000 ? "<= 2x" : "> 1x (Project faster)"
			label = sizes[s] == 1000 ? "2. Project / best SQL (%s), %s rows" : "2. best SQL (%s) / Project, %s rows"
			name = b; sub(/.*impl=/, "", name)
			if (sizes[s] == 1000)
				ratio(sprintf(label, name, sizes[s]), c sizes[s] "/impl=Project", b, target)
			else
				ratio(sprintf(label, name, sizes[s]), b, c sizes[s] "/impl=Project", target)
		}
		split("1000 100000 1000000", sizes, " ")
		for (s = 1; s <= 3; s++) {
			name = "ChannelPaired/rows=" sizes[s]
			if (name in paired)
				printf "%-66s %10.2fx   target %s\n", "   paired: SQLExists / Project, " sizes[s] " rows (median of per-run ratios)", paired[name], sizes[s] == 1000 ? ">= 0.5x" : "> 1x"
		}
		ratio("3. Project 1,000,000 rows / 1,000 rows", c "1000000/impl=Project", c "1000/impl=Project", "<= 1.5x")
		a = "AppendBatch/impl="
		ratio("4. AppendBatch / InsertLoop, per row", a "AppendBatch", a "InsertLoop", "<= 1.5x")
		ratio("   AppendBatch / Copy, per row", a "AppendBatch", a "Copy", "(information)")
		ratio("5. Append 16 writers: 1 desk / 16 desks (time per append)", "AppendConcurrent/desks=1", "AppendConcurrent/desks=16", ">= 3x")
		r = "Standby/run/appends="
		ratioIn(cpu, "6. Primary CPU, reads on a standby / on the primary, 80 appends", r "80/reads=standby", r "80/reads=primary", "<= 0.25x")
		ratioIn(cpu, "   the same, 40 appends", r "40/reads=standby", r "40/reads=primary", "<= 0.25x")
		ratioIn(cpu, "   the writers alone / reads on the primary, 80 appends (the floor)", r "80/reads=none", r "80/reads=primary", "(information)")
		ratio("7. Projection through the standby path / on the primary", "Standby/projection/path=standby", "Standby/projection/path=primary", "<= 1.2x")
		ratio("   through the standby path / on the standby alone (the routing)", "Standby/projection/path=standby", "Standby/projection/path=standby-alone", "(information)")
	}'"'"'
'
