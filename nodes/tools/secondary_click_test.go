package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// rightClicker right-clicks, recording where.
type rightClicker struct {
	*fakeDriver
	at []device.Point
}

func (r *rightClicker) SecondaryClick(_ context.Context, p device.Point) error {
	r.at = append(r.at, p)
	return nil
}

// Both at most 1 is relative; pixels are refused if one of them lies between 0 and 1 (half
// relative, half pixels).
func TestSecondaryClickRelativeOrPixels(t *testing.T) {
	d := &rightClicker{fakeDriver: newFake()}
	mustRun(t, "secondary_click", d, `{"x":0.5,"y":1}`)
	mustRun(t, "secondary_click", d, `{"x":540,"y":1}`)
	if len(d.at) != 2 || d.at[0] != (device.Point{X: 540, Y: 2399}) || d.at[1] != (device.Point{X: 540, Y: 1}) {
		t.Fatalf("clicked at %v", d.at)
	}
	_, err := runOp(t, "secondary_click", d, `{"x":0.5,"y":300}`)
	wantCode(t, err, broker.CodeBadInput)
	if !strings.Contains(err.Error(), "x 0.5 is no pixel") || !strings.Contains(err.Error(), "both") || len(d.at) != 2 {
		t.Fatalf("%v, clicked at %v", err, d.at)
	}
}

// A pixel coordinate beyond int's range is refused as the caller sent it: converted first, 1e308
// became -9223372036854775808 and passed the screen check. Nothing is clicked.
func TestSecondaryClickHugeCoordinate(t *testing.T) {
	d := &rightClicker{fakeDriver: newFake()}
	for args, want := range map[string]string{
		`{"x":1e308,"y":1}`:  "pixel (1e+308, 1) is outside the 1080x2400 screen",
		`{"x":1e30,"y":1}`:   "pixel (1e+30, 1) is outside the 1080x2400 screen",
		`{"x":5,"y":1e19}`:   "pixel (5, 10000000000000000000) is outside the 1080x2400 screen",
		`{"x":1080,"y":5}`:   "pixel (1080, 5) is outside the 1080x2400 screen (x must be 0 to 1079, y 0 to 2399)",
		`{"x":1079.6,"y":5}`: "pixel (1079.6, 5) is outside",
	} {
		_, err := runOp(t, "secondary_click", d, args)
		wantCode(t, err, broker.CodeBadInput)
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "-9223372036854775808") {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
	if len(d.at) != 0 {
		t.Fatalf("clicked at %v", d.at)
	}
	// The way forward is secondary_click's own: tap_xy would left-click (QA Q13.3).
	_, err := runOp(t, "secondary_click", d, `{"x":1080,"y":5}`)
	if msg := err.Error(); !strings.Contains(msg, "or give both x and y relative (0-1)") || strings.Contains(msg, "tap_xy") {
		t.Errorf("off-screen pixel: %v, want secondary_click's relative form, not tap_xy", err)
	}
	mustRun(t, "secondary_click", d, `{"x":1079.4,"y":2399}`)
	if len(d.at) != 1 || d.at[0] != (device.Point{X: 1079, Y: 2399}) {
		t.Fatalf("clicked at %v", d.at)
	}
}
