package sim

import (
	"context"
	"encoding/xml"
	"fmt"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// xnode is a <node> of a Source dump.
type xnode struct {
	Index      int     `xml:"index,attr"`
	Text       string  `xml:"text,attr"`
	ResourceID string  `xml:"resource-id,attr"`
	Class      string  `xml:"class,attr"`
	Package    string  `xml:"package,attr"`
	Desc       string  `xml:"content-desc,attr"`
	Clickable  bool    `xml:"clickable,attr"`
	Checked    bool    `xml:"checked,attr"`
	Focused    bool    `xml:"focused,attr"`
	Scrollable bool    `xml:"scrollable,attr"`
	Bounds     string  `xml:"bounds,attr"`
	Nodes      []xnode `xml:"node"`
}

type hierarchy struct {
	XMLName  xml.Name `xml:"hierarchy"`
	Rotation int      `xml:"rotation,attr"`
	Nodes    []xnode  `xml:"node"`
}

func parseSource(s string) (hierarchy, error) {
	var h hierarchy
	err := xml.Unmarshal([]byte(s), &h)
	return h, err
}

func parseBounds(s string) (image.Rectangle, error) {
	var r image.Rectangle
	_, err := fmt.Sscanf(s, "[%d,%d][%d,%d]", &r.Min.X, &r.Min.Y, &r.Max.X, &r.Max.Y)
	return r, err
}

func (n *xnode) walk(fn func(*xnode)) {
	fn(n)
	for i := range n.Nodes {
		n.Nodes[i].walk(fn)
	}
}

func (n xnode) rect(t testing.TB) image.Rectangle {
	t.Helper()
	r, err := parseBounds(n.Bounds)
	if err != nil {
		t.Fatalf("bounds %q: %v", n.Bounds, err)
	}
	return r
}

func centre(r image.Rectangle) device.Point {
	return device.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
}

// ctxT is a context that ends with the test, well before the test binary's own deadline.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dump returns the phone's hierarchy, failing the test if it is not well-formed.
func dump(t testing.TB, p *Phone) hierarchy {
	t.Helper()
	s, err := p.Source(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	h, err := parseSource(s)
	if err != nil {
		t.Fatalf("Source is not well-formed XML: %v\n%s", err, s)
	}
	return h
}

// all returns every node of the phone's hierarchy for which ok is true.
func all(t testing.TB, p *Phone, ok func(*xnode) bool) []xnode {
	t.Helper()
	h := dump(t, p)
	var out []xnode
	for i := range h.Nodes {
		h.Nodes[i].walk(func(n *xnode) {
			if ok(n) {
				out = append(out, *n)
			}
		})
	}
	return out
}

// node returns the one node whose resource-id, text or content-desc is key.
func node(t testing.TB, p *Phone, key string) xnode {
	t.Helper()
	found := all(t, p, func(n *xnode) bool { return n.ResourceID == key || n.Text == key || n.Desc == key })
	if len(found) == 0 {
		t.Fatalf("no node %q on screen; texts: %v", key, texts(t, p))
	}
	return found[0]
}

func has(t testing.TB, p *Phone, key string) bool {
	t.Helper()
	return len(all(t, p, func(n *xnode) bool { return n.ResourceID == key || n.Text == key || n.Desc == key })) > 0
}

func texts(t testing.TB, p *Phone) []string {
	t.Helper()
	var out []string
	for _, n := range all(t, p, func(n *xnode) bool { return n.Text != "" }) {
		out = append(out, n.Text)
	}
	return out
}

// tapOn taps the centre of the node named key, as a test script reading Source would.
func tapOn(t testing.TB, p *Phone, key string) {
	t.Helper()
	n := node(t, p, key)
	if err := p.Tap(ctxT(t), centre(n.rect(t)), 0); err != nil {
		t.Fatal(err)
	}
}

// foreground is the package of the screen's root node.
func foreground(t testing.TB, p *Phone) string {
	t.Helper()
	return dump(t, p).Nodes[0].Package
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func shot(t testing.TB, p *Phone) *image.RGBA {
	t.Helper()
	img, err := p.Screenshot(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	return img.(*image.RGBA)
}

func samePixels(a, b *image.RGBA) bool {
	return a.Rect == b.Rect && string(a.Pix) == string(b.Pix)
}

// eventually polls cond until it holds or a deadline passes.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}
