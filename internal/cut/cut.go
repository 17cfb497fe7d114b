package cut

// Within returns how many of n items, taken in the order an answer keeps them (0 first), fit
// in max together by the measure size gives them (bytes of content, a model's tokens): at
// least one when there are any, so that an answer bounded by it always makes progress,
// however large a single item. max <= 0 fits them all. It calls size in order, once an item,
// and not past the first item that does not fit.
func Within(n, max int, size func(i int) int) int {
	if max <= 0 {
		return n
	}
	used := 0
	for k := range n {
		used += size(k)
		if k > 0 && used > max {
			return k
		}
	}
	return n
}
