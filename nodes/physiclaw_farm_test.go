package nodes_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/tools"
)

// A sequence runs as one task: callers hammering the same device never get a tap in between
// its steps, which reach the phone back to back.
func TestSequenceIsOneTaskOnTheDevice(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	phone := f.Phone(serial)
	phone.SetDelay(3 * time.Millisecond) // widen the gaps between steps

	var wg sync.WaitGroup
	var others atomic.Int64
	ctx, stop := context.WithCancel(context.Background())
	defer wg.Wait()
	defer stop()
	for i := range 4 {
		c := f.Client(fmt.Sprintf("other-%d", i))
		wg.Go(func() {
			for ctx.Err() == nil {
				// Taps on the status bar, which does nothing.
				req := mcpgo.CallToolRequest{}
				req.Params.Name = "tap_abs_xy"
				req.Params.Arguments = map[string]any{"serial": serial, "x": 1000, "y": 10, "wait_seconds": 60}
				res, err := c.CallTool(ctx, req)
				if ctx.Err() != nil {
					return
				}
				if err != nil || res.IsError {
					t.Errorf("other caller: %v %v", err, res)
					return
				}
				others.Add(1)
			}
		})
	}
	c := f.Client("sequencer")
	farmtest.Eventually(t, 10*time.Second, func() bool { return others.Load() >= 10 }, "the other callers keep the device busy")
	for round := range 3 {
		before := others.Load()
		steps := make([]any, 5)
		for k := range steps {
			steps[k] = map[string]any{"tool_name": "tap_abs_xy", "args": map[string]any{"x": 100 + 10*round + k, "y": 10}}
		}
		res := farmtest.MustCall(t, c, "sequence", map[string]any{"serial": serial, "steps": steps, "wait_seconds": 60})
		var out tools.SequenceResult
		farmtest.Structured(t, res, &out)
		if len(out.Steps) != 5 {
			t.Fatalf("result %+v", out)
		}
		// The five taps are consecutive in the phone's input log.
		log := phone.InputLog()
		first := -1
		for i, line := range log {
			if line == fmt.Sprintf("tap %d 10 hold=0s", 100+10*round) {
				first = i
			}
		}
		if first < 0 || first+5 > len(log) {
			t.Fatalf("round %d: the sequence's first tap is not in the log: %v", round, log)
		}
		for k := range 5 {
			if want := fmt.Sprintf("tap %d 10 hold=0s", 100+10*round+k); log[first+k] != want {
				t.Fatalf("round %d: step %d: log has %q where %q belongs: another task ran in between\n%v", round, k+1, log[first+k], want, log[first:])
			}
		}
		farmtest.Eventually(t, 10*time.Second, func() bool { return others.Load() > before }, "the other callers run between sequences")
	}
	stop()
	wg.Wait()
	if n := phone.Overlaps(); n != 0 {
		t.Fatalf("%d overlapping operations", n)
	}
}

var listingLine = regexp.MustCompile(`^(e\d+) \[(\w+)\] "((?:[^"\\]|\\.)*)" \[([0-9.]+),([0-9.]+),([0-9.]+),([0-9.]+)\] ([0-9.]+)$`)

// The PhysiClaw loop end to end: peek, pick an element's bbox from the listing, tap it, peek
// to verify.
func TestPeekThenTapTheListedBBox(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	res := farmtest.MustCall(t, c, "peek", map[string]any{"serial": serial})
	if data, mime := farmtest.Image(res); mime != "image/jpeg" || len(data) == 0 {
		t.Fatalf("peek image: %s, %d bytes", mime, len(data))
	}
	var p tools.PeekResult
	farmtest.Structured(t, res, &p)
	var bbox []float64
	for _, line := range strings.Split(p.Listing, "\n") {
		m := listingLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("listing line %q is not `id [kind] \"label\" [l,t,r,b] conf`", line)
		}
		if m[8] != "1.00" {
			t.Errorf("UI tree elements have conf 1.00: %q", line)
		}
		if m[3] == "Settings" && m[2] == "button" {
			for _, s := range m[4:8] {
				v, _ := strconv.ParseFloat(s, 64)
				bbox = append(bbox, v)
			}
		}
	}
	if bbox == nil {
		t.Fatalf("no Settings button in the listing:\n%s", p.Listing)
	}
	farmtest.MustCall(t, c, "tap", map[string]any{"serial": serial, "bbox": bbox})
	fg, err := f.Phone(serial).ForegroundApp(context.Background())
	if err != nil || fg != "com.corral.settings" {
		t.Fatalf("tapping the Settings bbox left %q in front (%v)", fg, err)
	}
	res = farmtest.MustCall(t, c, "peek", map[string]any{"serial": serial})
	farmtest.Structured(t, res, &p)
	if !strings.Contains(p.Listing, `"Wi-Fi"`) {
		t.Fatalf("Settings' listing lacks Wi-Fi:\n%s", p.Listing)
	}
	// force_quit closes it and goes home.
	farmtest.MustCall(t, c, "force_quit", map[string]any{"serial": serial})
	if fg, _ := f.Phone(serial).ForegroundApp(context.Background()); fg != "com.corral.launcher" {
		t.Fatalf("after force_quit %s is in front", fg)
	}
}
