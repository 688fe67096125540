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
