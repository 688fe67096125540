package tools

import (
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

func TestDrag(t *testing.T) {
	d, calls := swiper()
	res := mustRun(t, "drag", d, `{"from_x":0,"from_y":0,"to_x":1,"to_y":1}`)
	want := swipeCall{device.Point{X: 0, Y: 0}, device.Point{X: 1079, Y: 2399}, time.Second, device.DragHold}
	if len(*calls) != 1 || (*calls)[0] != want {
		t.Fatalf("drag: %+v, want %+v", *calls, want)
	}
	for k, v := range map[string]float64{"fromX": 0, "fromY": 0, "toX": 1, "toY": 1} {
		if got, ok := res[k]; !ok || got != v {
			t.Errorf("result %s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	mustRun(t, "drag", d, `{"from_x":0.5,"from_y":0.5,"to_x":0.5,"to_y":0.25,"duration":250}`)
	if got := (*calls)[1].d; got != 250*time.Millisecond {
		t.Errorf("drag duration is milliseconds: got %v", got)
	}
	for _, args := range []string{
		`{"from_x":0,"from_y":0,"to_x":1}`,
		`{"from_x":0,"from_y":0,"to_x":1,"to_y":1,"duration":60001}`,
		`{"from_x":0,"from_y":0,"to_x":1,"to_y":1,"duration":-5}`,
		`{"from_x":0,"from_y":0,"to_x":1,"to_y":1,"direction":"up"}`,
		`{"from_x":true,"from_y":0,"to_x":1,"to_y":1}`,
	} {
		_, err := runOp(t, "drag", d, args)
		wantCode(t, err, broker.CodeBadInput)
	}
	if len(*calls) != 2 {
		t.Fatalf("bad input reached the driver: %+v", *calls)
	}
}
