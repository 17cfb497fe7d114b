// Package deskqueue holds the queue both stores' Watch use between what it reports (the
// names of desks with new rows, the conversations whose digests were stored) and the
// receiver of its channel: each in the order it came, at most once, so that a receiver that
// is slow to take them sees one report for many commits and a Watch never blocks on it.
package deskqueue

// Queue is desk names (or conversations) waiting for the receiver, in the order they came,
// each once. The zero Queue is empty and ready to use. It is not safe for concurrent use.
type Queue[T comparable] struct {
	names  []T
	queued map[T]bool
}

// Len returns how many names wait.
func (q *Queue[T]) Len() int { return len(q.names) }

// First returns the oldest name waiting; q must not be empty.
func (q *Queue[T]) First() T { return q.names[0] }

// Names returns the names waiting, oldest first; the caller must not change the slice,
// which is good until the next Add or Pop.
func (q *Queue[T]) Names() []T { return q.names }

// Add adds name after the others, unless it waits already.
func (q *Queue[T]) Add(name T) {
	if q.queued[name] {
		return
	}
	if q.queued == nil {
		q.queued = make(map[T]bool)
	}
	q.queued[name] = true
	q.names = append(q.names, name)
}

// Pop removes the oldest name; q must not be empty.
func (q *Queue[T]) Pop() {
	delete(q.queued, q.names[0])
	var zero T
	q.names[0] = zero
	q.names = q.names[1:]
}
