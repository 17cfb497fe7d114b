// Package fanout is the service's fan-out of new rows to its live streams: one tail per desk
// that has open streams, shared by every stream on the desk, and the writing of each
// stream's events.
//
// A desk's Tail is made by the first stream on it and dropped when the last one leaves
// (Hub). It reads the desk's new rows from the store once a wake-up, however many streams
// wait on it, keeps the newest of them in memory, and answers its Log from them, so that a
// stream's sharing.Prepare reads nothing from the store. With the rows it reads the desk's
// tokens once, after them, which vouches for every stream's token. A row this server
// appended it takes from the append (Hub.Stored), and over a store that reports desks'
// heads (server.HeadWatcher) it need not read it back: an append costs the store its
// request's token lookup and the tail's read of the tokens.
//
// Corrections are applied to the rows held as the log applies them (storage.Revise), at
// once for one this server appended (Hub.Corrected). A stream writes its events through an
// SSEWriter, part by part (WritePart); a redaction that erases a row of a part being written
// stops the write (PartWriter) before the redaction is answered, and a part prepared before
// a redaction is erased as it is written (InFlight).
//
// DigestNotes tells the desk's row streams which conversations' digests were stored, by this
// server or, over a store that reports them (server.DigestWatcher), by any process: the
// conversation alone; a watcher holds a set of them, not a queue. The store's watch runs
// while a stream watches, and a stream starts serving once it is up (or its first attempt
// failed, or a few seconds passed), so that a page that reads its digests after its stream
// opened misses none while it stays up.
//
// The streams themselves and their routes are package stream's, and what may open one the
// server's: a stream owns nothing but its watermark.
package fanout
