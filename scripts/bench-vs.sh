#!/bin/sh
# bench-vs.sh measures benchmarks of one package at an older revision and in the working tree,
# in one run, and prints benchstat's comparison (old, then new): the way BENCHMARKS.md shows
# that a change costs nothing where it should not.
#
#	scripts/bench-vs.sh REV PKG BENCH [out-file]	# e.g. b4816fb . 'ChannelVsNaive/.*Project-64heads'
#
# Environment: COUNT samples per side (default 10), BENCHTIME per sample (default 500ms).
# Both test binaries are built first and then run in turns, one sample each, so both sides
# see the same stretches of load on a shared machine. The old revision is checked out in a
# temporary git worktree, removed afterwards. benchstat: go install
# golang.org/x/perf/cmd/benchstat@latest (not a module dependency).
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: scripts/bench-vs.sh REV PKG BENCH [out-file]" >&2; exit 2; }
rev=$1 pkg=$2 bench=$3
out=${4:-/tmp/bench-vs.txt}
count=${COUNT:-10}
benchtime=${BENCHTIME:-500ms}
benchstat=${BENCHSTAT:-$(go env GOPATH)/bin/benchstat}

dir=$(mktemp -d)
trap 'git worktree remove --force "$dir/old" >/dev/null 2>&1; rm -rf "$dir"' EXIT
git worktree add --detach "$dir/old" "$rev" >/dev/null 2>&1
(cd "$dir/old" && go test -c -o "$dir/old.test" "$pkg")
go test -c -o "$dir/new.test" "$pkg"
: >"$dir/old.txt"
: >"$dir/new.txt"
i=0
while [ "$i" -lt "$count" ]; do
	for side in old new; do
		tree=.
		[ "$side" = old ] && tree=$dir/old
		# In the package's folder, as go test runs it, for benchmarks that read testdata.
		(cd "$tree/$pkg" && "$dir/$side.test" -test.run '^$' -test.bench "$bench" \
			-test.benchmem -test.count 1 -test.benchtime "$benchtime") | grep -v '^PASS$' >>"$dir/$side.txt"
	done
	i=$((i + 1))
done
cat "$dir/old.txt" "$dir/new.txt" >"$out"
"$benchstat" old="$dir/old.txt" new="$dir/new.txt"
