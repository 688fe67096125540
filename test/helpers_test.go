package test

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"

	"github.com/corral-farm/corral/internal/farmtest"
)

// element is one node of a uiautomator dump.
type element struct {
	Text     string    `xml:"text,attr"`
	Desc     string    `xml:"content-desc,attr"`
	Bounds   string    `xml:"bounds,attr"`
	Children []element `xml:"node"`
}

var boundsRE = regexp.MustCompile(`^\[(\d+),(\d+)\]\[(\d+),(\d+)\]$`)

// centreOf finds the element whose text (or description) is label in the device's UI source
// and returns its centre in relative coordinates.
func centreOf(t *testing.T, c *client.Client, serial, lease, label string) (x, y float64) {
	t.Helper()
	res := farmtest.MustCall(t, c, "get_source", map[string]any{"serial": serial, "lease": lease})
	var out struct {
		Source string `json:"source"`
	}
	farmtest.Structured(t, res, &out)
	var root struct {
		Nodes []element `xml:"node"`
	}
	if err := xml.Unmarshal([]byte(out.Source), &root); err != nil {
		t.Fatalf("source is not XML: %v", err)
	}
	size := farmtest.MustCall(t, c, "get_screen_size", map[string]any{"serial": serial, "lease": lease})
	var wh struct{ Width, Height int }
	farmtest.Structured(t, size, &wh)
	var found *element
	var walk func([]element)
	walk = func(es []element) {
		for i := range es {
			if found == nil && (es[i].Text == label || es[i].Desc == label) {
				found = &es[i]
			}
			walk(es[i].Children)
		}
	}
	walk(root.Nodes)
	if found == nil {
		t.Fatalf("no element %q in the UI source of %s", label, serial)
	}
	m := boundsRE.FindStringSubmatch(found.Bounds)
	if m == nil {
		t.Fatalf("bounds %q unreadable", found.Bounds)
	}
	n := func(s string) float64 { v, _ := strconv.Atoi(s); return float64(v) }
	return (n(m[1]) + n(m[3])) / 2 / float64(wh.Width-1), (n(m[2]) + n(m[4])) / 2 / float64(wh.Height-1)
}

// must is a tiny helper for table arguments.
func args(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[fmt.Sprint(kv[i])] = kv[i+1]
	}
	return m
}

func contains(t *testing.T, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(text, p) {
			t.Fatalf("%q does not say %q", text, p)
		}
	}
}
