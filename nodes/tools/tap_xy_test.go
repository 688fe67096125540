package tools

import (
	"context"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

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
