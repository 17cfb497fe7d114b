package server

// Streams and ordinary requests share the process's file descriptors: one a connection,
// and the store, the listener and the log hold some of their own.
const (
	// fdReserve is how many descriptors the default cap on streams leaves to everything
	// but half of the rest: the store's files and pool, the listener, the log.
	fdReserve = 256
	// fallbackFDLimit stands for the descriptor limit where the system cannot say.
	fallbackFDLimit = 1024
	// maxDefaultTotalStreams bounds the default however high the descriptor limit is.
	maxDefaultTotalStreams = 1 << 16
)

// DefaultMaxTotalStreams returns the default of Options.MaxTotalStreams: half of the
// file descriptors beyond the first 256, (RLIMIT_NOFILE − 256) / 2, at least 1 and at
// most 65,536, so that streams leave the other half and 256 to ordinary requests, the
// store and the listener. Where the system has no RLIMIT_NOFILE the limit is taken to
// be 1,024. (Go raises the soft limit to the hard one at start-up on Linux and macOS.)
func DefaultMaxTotalStreams() int {
	return streamsForFDs(fdLimit())
}

// streamsForFDs is DefaultMaxTotalStreams for a descriptor limit of n.
func streamsForFDs(n uint64) int {
	if n <= fdReserve+2 {
		return 1
	}
	return int(min((n-fdReserve)/2, maxDefaultTotalStreams))
}
