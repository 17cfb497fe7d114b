# make test: what CI runs (.ci/run, as make -j3 --output-sync=target test). Formatting, vet,
# staticcheck (pinned in go.mod as a tool), every Go test with the race detector, the full
# draws of the property tests without it, the tests that measure the heap alone, every
# benchmark once, the checks of the model formats against the official SDKs, and the
# TypeScript and the Python clients' tests. The Go tests get a throwaway PostgreSQL server for
# the pgstore tests (scripts/pgtest.sh: started from the machine's PostgreSQL install, stopped
# and removed afterwards; without an install the pgstore tests skip, or fail under CI=true).
#
# Under make -j the race-detector run (test-go, the longest) runs beside the rest (test-rest),
# which waits for go vet (vet): it compiles the packages without the race detector first, and
# two go commands compiling the same package at once would each do the work. staticcheck
# (lint) waits for it too, then runs beside the rest rather than ahead of it.
.PHONY: test test-go test-rest test-draws test-heap test-sdk test-typescript test-python client-bin check fmt vet lint bench bench-once pgbench fuzz

test: test-go test-rest lint

test-rest: vet
	@$(MAKE) --no-print-directory test-draws test-heap bench-once test-sdk test-typescript test-python

# vet runs go vet on every package, with more checks than the ones go test runs before a
# package's tests, so the test runs below skip those (-vet=off). Their test binaries are
# linked without DWARF (-ldflags=-w), which only a debugger reads: a panic's or the race
# detector's stack traces come from the symbol table, which stays.
GOTEST := go test -vet=off -ldflags=-w

# The race detector instruments every package and turns on checkptr everywhere. Both stay on
# for this module's code and for SQLite's Go driver (modernc.org/sqlite, checkptr aside), which
# this module's code calls. They are off for the rest of modernc.org's packages: SQLite and the
# C library translated from C, whose memory is their own and guarded by SQLite's own locks.
# There the race detector and checkptr would check that translation, not this module, and
# take most of the CPU time of every test that goes through SQLite.
RACEFLAGS := -race -gcflags='modernc.org/...=-d=checkptr=0 -race=false' -gcflags='modernc.org/sqlite=-d=checkptr=0'

# The tests that measure the heap (internal/heaptest) skip here. go test starts the
# packages' tests in the order it is given them, as many at once as -p (the cores): the
# packages whose tests take longest come first, so that the run does not end on one of
# them alone.
RACE_FIRST := ./pgstore ./sqlitestore ./server ./cmd/transcript ./internal/storetest ./deskmcp ./sharing .
test-go:
	bash scripts/pgtest.sh $(GOTEST) $(RACEFLAGS) -timeout 30m $(RACE_FIRST) ./...

# The tests that draw fewer random cases under the race detector (internal/proptest.Desks:
# their checks run on one goroutine, where it has little to check) draw all of them here,
# without it: the property and model tests of the root, storage and sharing, and
# internal/storetest's; deskmcp's TestFitting and TestErasure; SQLite's and PostgreSQL's
# search rule (storetest.SearchDraw), TestSearchRuleBatches and
# TestSearchWorkCheckCatchesEverySetRead;
# and the service's search route's (server's TestSearchModel, which skips under the race
# detector).
test-draws:
	$(GOTEST) -timeout 10m . ./storage ./sharing ./internal/storetest
	PGTEST_STANDBY=0 bash scripts/pgtest.sh $(GOTEST) -timeout 10m \
		-run '^(TestFitting|TestErasure|TestSearchRuleBatches|TestSearchWorkCheckCatchesEverySetRead|TestSearchModel)$$|^TestStore$$/^Search$$' \
		./deskmcp ./sqlitestore ./pgstore ./server

# The tests that measure the heap: each counts every allocation of its process, so they run
# in processes of their own (-run Heap: a heap test's name holds Heap), one package at a time
# (-p 1), without the race detector, whose instrumentation is not what a host runs.
HEAP_PKGS = $(sort $(dir $(shell grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.venv --exclude-dir=.git 'heaptest\.Serial' .)))
test-heap:
	TRANSCRIPT_HEAP_TESTS=1 bash scripts/pgtest.sh $(GOTEST) -p 1 -run Heap -timeout 10m $(HEAP_PKGS)

# The command the clients' tests run (TRANSCRIPT_BIN): built once for both, in bin/ (ignored
# by git).
CLIENT_BIN := $(CURDIR)/bin/transcript
client-bin:
	go build -o "$(CLIENT_BIN)" ./cmd/transcript

# The TypeScript client's tests (clients/typescript), against a transcript serve built here:
# its dependencies from its lock file, then tsc and node --test.
test-typescript: client-bin
	cd clients/typescript && npm ci --no-audit --no-fund && TRANSCRIPT_BIN="$(CLIENT_BIN)" npm test

# The Python client's tests (clients/python), against a transcript serve built here: a
# virtual environment (clients/python/.venv) with the lock file's packages and the package
# itself with every extra, then ruff, mypy and pytest.
test-python: client-bin
	cd clients/python && python3 -m venv .venv && \
	.venv/bin/pip install -q --disable-pip-version-check -r requirements.lock && \
	.venv/bin/pip install -q --disable-pip-version-check --no-deps --no-build-isolation --force-reinstall '.[autogen,langchain,openai-agents]' && \
	.venv/bin/pip check && \
	.venv/bin/ruff check . ../../examples/python && .venv/bin/ruff format --check . ../../examples/python && .venv/bin/mypy && \
	TRANSCRIPT_BIN="$(CLIENT_BIN)" .venv/bin/pytest -q

# gofmt, go vet and staticcheck, with the files behind the sdkcheck build tag.
check: fmt vet lint

fmt:
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi

vet: fmt
	go vet -tags sdkcheck ./...

lint: vet
	go tool staticcheck -tags sdkcheck ./...

# Every Go benchmark once (-benchtime=1x), so that none rots: each still builds, sets up
# and passes its own checks. No timing is asserted, and no desk a benchmark builds holds
# more than TRANSCRIPT_BENCH_ROWS rows (internal/benchdesk.Rows; the command's benchmarks
# load that many instead of a million). Without the race detector: the benchmarks measure
# the program a host runs, and test-go has raced the same code. Only the packages that have a
# benchmark are built for it.
BENCH_PKGS = $(sort $(dir $(shell grep -rl --include='*_test.go' --exclude-dir=node_modules --exclude-dir=.venv --exclude-dir=.git '^func Benchmark' .)))
bench-once:
	TRANSCRIPT_BENCH_ROWS=1000 bash scripts/pgtest.sh $(GOTEST) -run '^$$' -bench . -benchtime=1x -timeout 30m $(BENCH_PKGS)

# The checks that the openai and anthropic formats decode into the official SDKs' request
# types. The Anthropic SDK's is behind the sdkcheck build tag: it is large to compile, and
# these checks of pure functions run once, without the race detector.
test-sdk:
	$(GOTEST) -tags sdkcheck -run 'DecodesIntoSDKTypes$$' ./render

# The figures in BENCHMARKS.md.
bench:
	bash scripts/bench.sh bench.out

# The PostgreSQL store's figures in BENCHMARKS.md, on a throwaway server that fsyncs its
# commits (PGTEST_DURABLE=0: one that does not).
pgbench:
	bash scripts/pgbench.sh pgbench.out

# A few minutes of each fuzz target.
fuzz:
	go test -run '^$$' -fuzz '^FuzzProject$$' -fuzztime 3m .
	go test -run '^$$' -fuzz '^FuzzBlank$$' -fuzztime 30s .
	go test -run '^$$' -fuzz '^FuzzAsides$$' -fuzztime 1m .
	go test -run '^$$' -fuzz '^FuzzCorrections$$' -fuzztime 1m .
	go test -run '^$$' -fuzz '^FuzzCorrections$$' -fuzztime 1m ./server
	go test -run '^$$' -fuzz '^FuzzSearchDesk$$' -fuzztime 1m ./deskmcp
	go test -run '^$$' -fuzz '^FuzzEnvelope$$' -fuzztime 30s ./render
	go test -run '^$$' -fuzz '^FuzzMarkTerms$$' -fuzztime 30s ./render
	go test -run '^$$' -fuzz '^FuzzAuthenticate$$' -fuzztime 30s ./token
