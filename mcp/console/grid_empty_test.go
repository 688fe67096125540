package console

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// A viewer whose tags match no device gets empty filter lists, not null: the page spreads them (each
// after an empty choice), and null threw, leaving "The gateway does not answer" on the grid.
func TestGridOfNoDeviceHasEmptyLists(t *testing.T) {
	c := New(Config{Farm: testFarm()})
	nobody := Viewer{Name: "nobody", MayUse: func([]string) bool { return false }}
	g := c.grid(context.WithValue(t.Context(), viewerKey{}, nobody), filter{})
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range []string{"platforms", "nodes", "tags"} {
		if !strings.Contains(string(b), `"`+list+`":[]`) {
			t.Errorf("%s is not an empty list: %s", list, b)
		}
	}
}
