package uitree_test

import (
	"testing"

	"github.com/corral-farm/corral/nodes/uitree"
)

// FuzzParse throws arbitrary text at Parse: it never panics, and what it returns keeps its
// promises (bounded count and depth, document order, well-formed bounds).
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		realDump,
		`<hierarchy><node bounds="[0,0][1,1]"><node text="a"/></node></hierarchy>`,
		`<?xml version="1.0"?><hierarchy rotation="1"><node class="x.Button" clickable="true" bounds="[-1,-1][5,5]"/></hierarchy>`,
		`<node><node><node></node></node></node>`,
		`<hierarchy><node text="&lt;&amp;&#x1F600;" content-desc="&#0;"/></hierarchy>`,
		`<hierarchy><node bounds="[2147483648,0][1,1]"/></hierarchy>`,
		"garbage <a><b></a>",
		"<!DOCTYPE x [<!ENTITY a \"aaaa\">]><hierarchy><node text=\"&a;\"/></hierarchy>",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, dump string) {
		els, err := uitree.Parse(dump)
		if err != nil {
			if els != nil {
				t.Fatalf("elements returned with an error: %v", err)
			}
			return
		}
		if len(els) > uitree.MaxElements {
			t.Fatalf("%d elements", len(els))
		}
		for i, e := range els {
			if e.Index != i || e.Depth < 0 || e.Depth >= uitree.MaxDepth {
				t.Fatalf("element %d: index %d depth %d", i, e.Index, e.Depth)
			}
			if i > 0 && e.Depth > els[i-1].Depth+1 {
				t.Fatalf("element %d at depth %d follows depth %d", i, e.Depth, els[i-1].Depth)
			}
			if e.Bounds != e.Bounds.Canon() {
				t.Fatalf("element %d: bounds %v not canonical", i, e.Bounds)
			}
			_ = e.Kind()
			_ = e.Label()
		}
	})
}
