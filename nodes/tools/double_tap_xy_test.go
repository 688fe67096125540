package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

func TestDoubleTapXY(t *testing.T) {
	d := newAbled()
	var got []device.Point
	d.DoubleTapFn = func(_ context.Context, p device.Point) error { got = append(got, p); return nil }
	mustRun(t, "double_tap_xy", d, `{"x":0,"y":1}`)
	mustRun(t, "double_tap_xy", d, `{"x":1,"y":0}`)
	if want := []device.Point{{X: 0, Y: 2399}, {X: 1079, Y: 0}}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("double taps %v, want %v", got, want)
	}
	for _, args := range []string{`{"x":1.01,"y":0}`, `{"x":0}`, `{"x":0,"y":0,"duration":1}`, `{}`} {
		_, err := runOp(t, "double_tap_xy", d, args)
		wantCode(t, err, broker.CodeBadInput)
	}
	if len(got) != 2 {
		t.Fatalf("bad input reached the driver: %v", got)
	}
}

func TestDoubleTapUnsupported(t *testing.T) {
	_, err := runOp(t, "double_tap_xy", newFake(), `{"x":0.5,"y":0.5}`)
	wantCode(t, err, broker.CodeUnsupported)
	if !strings.Contains(err.Error(), "fake-1") {
		t.Errorf("unsupported should name the device: %v", err)
	}
}
