package importer

// keyIndex indexes the rows of an import by key, in order: the row carrying each key, the
// rows that repeat an earlier row's key, and the keys to look up in the desk. A reader may
// build it as it reads, while its lines are still being decoded, so that storeRows need not
// walk a million rows again before it can begin (readJSONLines does); storeRows builds it
// otherwise.
type keyIndex struct {
	byKey   map[string]int      // key → the first row carrying it
	lookup  []string            // the rows' keys, each once; after done, then the parent (and target) keys they lack
	extra   map[string]struct{} // parent and target keys no earlier row carries
	repeats [][2]int            // a row, and the earlier row whose key it repeats
	n       int                 // rows added
	done    bool
}

// newKeyIndex returns an empty index with room for the keys of rows rows.
func newKeyIndex(rows int) *keyIndex {
	return &keyIndex{byKey: make(map[string]int, rows), lookup: make([]string, 0, rows)}
}

// reserve makes room for the keys of rows rows in all.
func (x *keyIndex) reserve(rows int) {
	if rows <= len(x.byKey) {
		return
	}
	byKey := make(map[string]int, rows)
	for k, i := range x.byKey {
		byKey[k] = i
	}
	x.byKey = byKey
	x.lookup = append(make([]string, 0, rows), x.lookup...)
}

// add indexes r, the import's next row.
func (x *keyIndex) add(r *importRow) {
	i := x.n
	x.n++
	if key := r.Message.Key; key != "" {
		if j, repeat := x.byKey[key]; repeat {
			x.repeats = append(x.repeats, [2]int{i, j})
		} else {
			x.byKey[key] = i
			x.lookup = append(x.lookup, key)
		}
	}
	for _, p := range [3]string{r.ParentKey, r.ParentKeyInstead, r.CorrectsKey} {
		if p == "" {
			continue
		}
		if _, ok := x.byKey[p]; !ok {
			if x.extra == nil {
				x.extra = make(map[string]struct{})
			}
			x.extra[p] = struct{}{}
		}
	}
}

// finish ends the index once every row is added: the parent and target keys no row carries
// join the keys to look up.
func (x *keyIndex) finish() {
	if x.done {
		return
	}
	x.done = true
	for p := range x.extra {
		if _, ok := x.byKey[p]; !ok { // a later row's key is looked up already
			x.lookup = append(x.lookup, p)
		}
	}
}

// keysOf returns the index of rows.
func keysOf(rows []importRow) *keyIndex {
	keyed := 0
	for i := range rows {
		if rows[i].Message.Key != "" {
			keyed++
		}
	}
	x := newKeyIndex(keyed)
	for i := range rows {
		x.add(&rows[i])
	}
	x.finish()
	return x
}
