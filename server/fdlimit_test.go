package server

import "testing"

func TestStreamsForFDs(t *testing.T) {
	for _, tc := range []struct {
		fds  uint64
		want int
	}{
		{0, 1}, {100, 1}, {258, 1}, {260, 2}, {1024, 384}, {4096, 1920}, {1 << 20, maxDefaultTotalStreams}, {^uint64(0), maxDefaultTotalStreams},
	} {
		if got := streamsForFDs(tc.fds); got != tc.want {
			t.Errorf("streamsForFDs(%d) = %d, want %d", tc.fds, got, tc.want)
		}
	}
	if n := DefaultMaxTotalStreams(); n < 1 || n > maxDefaultTotalStreams {
		t.Errorf("DefaultMaxTotalStreams() = %d", n)
	}
}
