# make test: what CI runs (.ci/run). Formatting, vet, staticcheck (pinned in go.mod as a
# tool), every Go test with the race detector, then the TypeScript and the Python clients'
# tests; the Go tests get a throwaway PostgreSQL server for the pgstore tests
# (scripts/pgtest.sh: started from the machine's PostgreSQL install, stopped and removed
# afterwards; without an install the pgstore tests skip, or fail under CI=true).
.PHONY: test test-go test-typescript test-python check bench bench-once pgbench fuzz

test: check test-go test-typescript test-python

# The race detector also turns on checkptr everywhere; it stays on for this module's code but
# is off for modernc.org's packages (the SQLite translated from C), where it checks that
# translation's pointer arithmetic rather than this module's and takes most of the CPU time
# of a test that goes through SQLite.
RACEFLAGS := -race -gcflags='modernc.org/...=-d=checkptr=0'

test-go:
	bash scripts/pgtest.sh go test $(RACEFLAGS) -timeout 30m ./...

# The TypeScript client's tests (clients/typescript), against a transcript serve built here:
# its dependencies from its lock file, then tsc and node --test.
test-typescript:
	@bin=$$(mktemp -d); trap 'rm -rf "$$bin"' EXIT; \
	go build -o "$$bin/transcript" ./cmd/transcript && \
	cd clients/typescript && npm ci --no-audit --no-fund && TRANSCRIPT_BIN="$$bin/transcript" npm test

# The Python client's tests (clients/python), against a transcript serve built here: a
# virtual environment (clients/python/.venv) with the lock file's packages and the package
# itself with every extra, then ruff, mypy and pytest.
test-python:
	@bin=$$(mktemp -d); trap 'rm -rf "$$bin"' EXIT; \
	go build -o "$$bin/transcript" ./cmd/transcript && \
	cd clients/python && python3 -m venv .venv && \
	.venv/bin/pip install -q -r requirements.lock && \
	.venv/bin/pip install -q --no-deps --no-build-isolation --force-reinstall '.[autogen,langchain,openai-agents]' && \
	.venv/bin/pip check && \
	.venv/bin/ruff check . ../../examples/python && .venv/bin/ruff format --check . ../../examples/python && .venv/bin/mypy && \
	TRANSCRIPT_BIN="$$bin/transcript" .venv/bin/pytest -q

check:
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go tool staticcheck ./...

# Every Go benchmark once (-benchtime=1x), so that none rots: each still builds, sets up
# and passes its own checks. No timing is asserted. The command's benchmarks load 1,000
# rows (TRANSCRIPT_BENCH_ROWS) instead of a million.
bench-once:
	TRANSCRIPT_BENCH_ROWS=1000 bash scripts/pgtest.sh go test -run '^$$' -bench . -benchtime=1x -timeout 30m ./...

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
