// Package deskqueue holds the queue both stores' Watch use between the names of desks with
// new rows and the receiver of its channel: names in the order they came, each at most
// once, so that a receiver that is slow to take them sees one name for many commits and
// a Watch never blocks on it.
package deskqueue

// Queue is desk names waiting for the receiver, in the order they came, each once. The zero
// Queue is empty and ready to use. It is not safe for concurrent use.
type Queue struct {
	names  []string
	queued map[string]bool
}

// Len returns how many names wait.
func (q *Queue) Len() int { return len(q.names) }

// First returns the oldest name waiting; q must not be empty.
func (q *Queue) First() string { return q.names[0] }

// Names returns the names waiting, oldest first; the caller must not change the slice,
// which is good until the next Add or Pop.
func (q *Queue) Names() []string { return q.names }

// Add adds name after the others, unless it waits already.
func (q *Queue) Add(name string) {
	if q.queued[name] {
		return
	}
	if q.queued == nil {
		q.queued = make(map[string]bool)
	}
	q.queued[name] = true
	q.names = append(q.names, name)
}

// Pop removes the oldest name; q must not be empty.
func (q *Queue) Pop() {
	delete(q.queued, q.names[0])
	q.names[0] = ""
	q.names = q.names[1:]
}
