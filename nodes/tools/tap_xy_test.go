package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// tap_xy and tap_abs_xy say the hold asked: one held 3 s answered only "tapped at (0.500,
// 0.500) = pixel (540, 1200)", as a plain tap.
func TestTapSaysTheHold(t *testing.T) {
	for _, c := range []struct{ tool, args, want string }{
		{"tap_xy", `{"x":0.5,"y":0.5,"duration":3}`, "tapped at (0.500, 0.500) = pixel (540, 1200), held down 3s"},
		{"tap_xy", `{"x":0.5,"y":0.5,"duration":0.25}`, "pixel (540, 1200), held down 250ms"},
		{"tap_abs_xy", `{"x":540,"y":1200,"duration":1.5}`, "tapped at pixel (540, 1200), held down 1.5s"},
	} {
		res := mustRun(t, c.tool, newFake(), c.args)
		if msg, _ := res["message"].(string); !strings.Contains(msg, c.want) {
			t.Errorf("%s %s: %q, want it to say %q", c.tool, c.args, msg, c.want)
		}
	}
	for _, c := range []struct{ tool, args string }{{"tap_xy", `{"x":0.5,"y":0.5}`}, {"tap_abs_xy", `{"x":540,"y":1200}`}} {
		if msg, _ := mustRun(t, c.tool, newFake(), c.args)["message"].(string); strings.Contains(msg, "held") {
			t.Errorf("%s %s, a plain tap: %q", c.tool, c.args, msg)
		}
	}
}

func TestTapXYPixels(t *testing.T) {
	for _, c := range []struct {
		args string
		want device.Point
		hold time.Duration
	}{
		{`{"x":0,"y":0}`, device.Point{X: 0, Y: 0}, 0},
		{`{"x":1,"y":1}`, device.Point{X: 1079, Y: 2399}, 0},
		{`{"x":0.5,"y":0.5,"duration":1.5}`, device.Point{X: 540, Y: 1200}, 1500 * time.Millisecond},
		{`{"x":1,"y":0,"anti_risk":false}`, device.Point{X: 1079, Y: 0}, 0}, // anti_risk: behaviour_test.go
	} {
		d := newFake()
		var got device.Point
		var hold time.Duration
		d.TapFn = func(_ context.Context, p device.Point, h time.Duration) error { got, hold = p, h; return nil }
		mustRun(t, "tap_xy", d, c.args)
		if got != c.want || hold != c.hold {
			t.Errorf("tap_xy %s: tapped %v hold %v, want %v hold %v", c.args, got, hold, c.want, c.hold)
		}
	}
}
