package bench

import (
	"testing"

	"github.com/corral-farm/corral/internal/farmtest"
)

// BenchmarkBehaviour is what HttpRunner's behaviour parameters cost a tap_xy over MCP on a
// simulated phone (1 node), the paths in turns: plain, anti_risk (the touch varied),
// pre_mark_operation (the screen captured, marked, encoded as JPEG and saved in the JetStream
// object store before the answer), and beside them the floor of a mark, a screenshot call at
// the marks' width. It reports each path's latency, each p50 over the plain tap's
// (ratio-NAME), and pre_mark's p50 over the plain tap's and the screenshot's together
// (ratio-pre_mark-to-tap+screenshot).
func BenchmarkBehaviour(b *testing.B) {
	f := farmtest.Start(b, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true, InProcessNATS: true})
	c := httpClient(b, f, "bench-behaviour")
	serial := "n1-p1"
	lease := leaseHandle(b, c, map[string]any{"serial": serial})
	callWith := func(tool string, extra ...any) func() error {
		args := map[string]any{"serial": serial, "lease": lease}
		for i := 0; i+1 < len(extra); i += 2 {
			args[extra[i].(string)] = extra[i+1]
		}
		return func() error { _, err := call(c, tool, args); return err }
	}
	at := []any{"x", 0.5, "y", 0.9} // the wallpaper: the screen stays as it is
	lat := interleave(b, []path{
		{"anti_risk", callWith("tap_xy", append(at, "anti_risk", true)...)},
		{"pre_mark", callWith("tap_xy", append(at, "pre_mark_operation", true)...)},
		{"screenshot", callWith("screenshot", "max_width", 540)},
		{"plain", callWith("tap_xy", at...)},
	})
	tap := float64(p50(lat[3]))
	for i, name := range []string{"anti_risk", "pre_mark", "screenshot"} {
		b.ReportMetric(float64(p50(lat[i]))/tap, "ratio-"+name)
	}
	b.ReportMetric(float64(p50(lat[1]))/(tap+float64(p50(lat[2]))), "ratio-pre_mark-to-tap+screenshot")
}
