package transcript

// batchBit marks a Parent made by BatchParent. Real sequences never reach it.
const batchBit Sequence = 1 << 63

// BatchParent returns a Parent value that, in a store's AppendBatch, names the i-th (0-based)
// message of the same batch, whose Seq is not known until the batch is stored. The store
// replaces it with that message's assigned Seq; it names only an earlier message of the
// batch. Outside a batch it is not a valid Parent: no log may return it.
func BatchParent(i int) Sequence { return batchBit | Sequence(uint32(i)) }

// BatchIndex reports whether s was made by BatchParent, and the batch position it names.
func (s Sequence) BatchIndex() (int, bool) {
	if s&batchBit == 0 {
		return 0, false
	}
	return int(s &^ batchBit), true
}
