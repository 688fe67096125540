package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

func TestTapAbsXYPixels(t *testing.T) {
	for _, c := range []struct {
		args string
		want device.Point
		hold time.Duration
	}{
		{`{"x":0,"y":0}`, device.Point{X: 0, Y: 0}, 0},
		{`{"x":1079,"y":2399}`, device.Point{X: 1079, Y: 2399}, 0},
		{`{"x":1079.4,"y":1.4}`, device.Point{X: 1079, Y: 1}, 0},
		{`{"x":1,"y":0}`, device.Point{X: 1, Y: 0}, 0},
		{`{"x":540,"y":1200,"duration":0.25,"anti_risk":false}`, device.Point{X: 540, Y: 1200}, 250 * time.Millisecond},
	} {
		d := newFake()
		var got device.Point
		var hold time.Duration
		d.TapFn = func(_ context.Context, p device.Point, h time.Duration) error { got, hold = p, h; return nil }
		res := mustRun(t, "tap_abs_xy", d, c.args)
		if got != c.want || hold != c.hold {
			t.Errorf("tap_abs_xy %s: tapped %v hold %v, want %v hold %v", c.args, got, hold, c.want, c.hold)
		}
		if !strings.Contains(res["message"].(string), "tapped") {
			t.Errorf("message %q", res["message"])
		}
	}
}

func TestTapAbsXYBadInput(t *testing.T) {
	for _, args := range []string{
		`{"x":1080,"y":0}`,   // one past the right edge
		`{"x":0,"y":2399.6}`, // rounds past the bottom edge
		`{"x":-1,"y":0}`,
		`{"x":100001,"y":0}`,
		`{"y":5}`,
		`{"x":"5","y":5}`,
		`{"x":5,"y":5,"duration":61}`,
		`{"x":5,"y":5,"duration":-1}`,
		`{"x":5,"y":5,"z":1}`,
		`{"x":5,"y":5} {}`,
		`[5,5]`,
	} {
		d := newFake()
		d.TapFn = func(context.Context, device.Point, time.Duration) error {
			t.Errorf("%s reached the driver", args)
			return nil
		}
		_, err := runOp(t, "tap_abs_xy", d, args)
		wantCode(t, err, broker.CodeBadInput)
	}
}

// Coordinates between 0 and 1 are relative ones given to a tool of pixels: refused, with tap_xy
// named, rather than tapped at pixel (1, 1).
func TestTapAbsXYRefusesRelativeCoordinates(t *testing.T) {
	for _, args := range []string{`{"x":0.5,"y":0.5}`, `{"x":300,"y":0.25}`, `{"x":0.999,"y":0}`} {
		d := newFake()
		_, err := runOp(t, "tap_abs_xy", d, args)
		wantCode(t, err, broker.CodeBadInput)
		if !strings.Contains(err.Error(), "is no pixel") || !strings.Contains(err.Error(), "use tap_xy") {
			t.Errorf("tap_abs_xy %s: %v", args, err)
		}
		if calls := d.Calls(); len(calls) != 0 {
			t.Errorf("tap_abs_xy %s reached the driver: %v", args, calls)
		}
	}
}

func TestTapAbsXYOffScreenNamesTheSize(t *testing.T) {
	_, err := runOp(t, "tap_abs_xy", newFake(), `{"x":2000,"y":10}`)
	wantCode(t, err, broker.CodeBadInput)
	if !strings.Contains(err.Error(), "1080x2400") || !strings.Contains(err.Error(), "get_screen_size") {
		t.Errorf("message should name the screen size and get_screen_size: %v", err)
	}
}

func TestTapDriverErrorPassesThrough(t *testing.T) {
	d := newFake()
	d.TapFn = func(context.Context, device.Point, time.Duration) error { return errDriver }
	_, err := runOp(t, "tap_abs_xy", d, `{"x":1,"y":1}`)
	wantCode(t, err, broker.CodeDriver)
	d.ScreenSizeFn = func(context.Context) (device.Size, error) { return device.Size{}, errDriver }
	_, err = runOp(t, "tap_xy", d, `{"x":1,"y":1}`)
	wantCode(t, err, broker.CodeDriver)
}
