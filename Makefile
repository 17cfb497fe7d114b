# make test: what CI runs (.ci/run). Formatting, vet, staticcheck (pinned in go.mod as a
# tool), then every test with the race detector.
.PHONY: test check bench fuzz

test: check
	go test -race ./...

check:
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go tool staticcheck ./...

# The figures in BENCHMARKS.md.
bench:
	go test -run '^$$' -bench . -benchmem -count 6 . | tee bench.out

# A few minutes of each fuzz target.
fuzz:
	go test -run '^$$' -fuzz '^FuzzProject$$' -fuzztime 3m .
	go test -run '^$$' -fuzz '^FuzzBlank$$' -fuzztime 30s .
