//go:build !race

package sqlitestore

const raceEnabled = false
