package sim

import (
	"slices"
	"testing"
)

// The serials of one start have one width, that of the count (two digits at least, as before),
// so they sort in their order: with --sim 120, sim-n-100 came before sim-n-11.
func TestNumberedSerialsSortInOrder(t *testing.T) {
	for _, c := range []struct {
		count       int
		first, last string
	}{
		{1, "sim-n-01", "sim-n-01"},
		{9, "sim-n-01", "sim-n-09"},
		{99, "sim-n-01", "sim-n-99"},
		{100, "sim-n-001", "sim-n-100"},
		{120, "sim-n-001", "sim-n-120"},
		{1000, "sim-n-0001", "sim-n-1000"},
	} {
		serials := make([]string, 0, c.count)
		for i := 1; i <= c.count; i++ {
			serials = append(serials, Numbered("sim-n", i, c.count))
		}
		if serials[0] != c.first || serials[c.count-1] != c.last {
			t.Errorf("count %d: serials %s … %s, want %s … %s", c.count, serials[0], serials[c.count-1], c.first, c.last)
		}
		if sorted := slices.Sorted(slices.Values(serials)); !slices.Equal(sorted, serials) {
			i := slices.IndexFunc(sorted, func(s string) bool { return s != serials[slices.Index(sorted, s)] })
			t.Errorf("count %d: the serials do not sort in their order: %s sorts at %d", c.count, sorted[i], i+1)
		}
		for _, s := range serials {
			if len(s) != len(serials[0]) {
				t.Errorf("count %d: %s and %s differ in width", c.count, serials[0], s)
				break
			}
		}
	}
}
