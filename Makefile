# make test: what CI runs (.ci/run). Formatting, vet, staticcheck (pinned in go.mod as a
# tool), then every test with the race detector, with a throwaway PostgreSQL server for the
# pgstore tests (scripts/pgtest.sh: started from the machine's PostgreSQL install, stopped
# and removed afterwards; without an install the pgstore tests skip, or fail under CI=true).
.PHONY: test check bench pgbench fuzz

test: check
	bash scripts/pgtest.sh go test -race ./...

check:
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go tool staticcheck ./...

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
