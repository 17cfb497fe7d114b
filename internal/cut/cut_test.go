package cut

import "testing"

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		sizes []int
		max   int
		want  int
	}{
		{nil, 10, 0},
		{[]int{4, 4, 4}, 0, 3},
		{[]int{4, 4, 4}, -1, 3},
		{[]int{4, 4, 4}, 8, 2},
		{[]int{4, 4, 4}, 7, 1},
		{[]int{20, 1}, 5, 1}, // one item over the budget still goes
		{[]int{4, 0, 0, 4}, 4, 3},
		{[]int{4, 4, 4}, 100, 3},
	} {
		var measured []int
		got := Within(len(tc.sizes), tc.max, func(i int) int {
			measured = append(measured, i)
			return tc.sizes[i]
		})
		if got != tc.want {
			t.Errorf("Within(%v, %d) = %d, want %d", tc.sizes, tc.max, got, tc.want)
		}
		for i, m := range measured {
			if m != i || i > got {
				t.Errorf("Within(%v, %d) measured items %v: want 0, 1, ... and none past the first that does not fit", tc.sizes, tc.max, measured)
				break
			}
		}
	}
}
