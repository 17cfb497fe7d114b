// Package watchset keeps the watches a store has running, so that the store's Close ends
// them and waits for them: sqlitestore's and pgstore's Watch, WatchHeads and WatchDigests.
package watchset
