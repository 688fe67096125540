package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

type swipeCall struct {
	from, to device.Point
	d, hold  time.Duration
}

func swiper() (*fakeAbled, *[]swipeCall) {
	d := newAbled()
	var calls []swipeCall
	d.SwipeFn = func(_ context.Context, from, to device.Point, dur, hold time.Duration) error {
		calls = append(calls, swipeCall{from, to, dur, hold})
		return nil
	}
	return d, &calls
}

func TestSwipeDirections(t *testing.T) {
	for _, c := range []struct {
		args, dir string
		want      swipeCall
	}{
		// up: the finger moves from low to high on the screen.
		{`{"direction":"up"}`, "up", swipeCall{device.Point{X: 540, Y: 1799}, device.Point{X: 540, Y: 600}, 300 * time.Millisecond, 0}},
		{`{"direction":"down","duration":1}`, "down", swipeCall{device.Point{X: 540, Y: 600}, device.Point{X: 540, Y: 1799}, time.Second, 0}},
		{`{"direction":"LEFT","press_duration":0.5}`, "left", swipeCall{device.Point{X: 809, Y: 1200}, device.Point{X: 270, Y: 1200}, 300 * time.Millisecond, 500 * time.Millisecond}},
		{`{"direction":" right "}`, "right", swipeCall{device.Point{X: 270, Y: 1200}, device.Point{X: 809, Y: 1200}, 300 * time.Millisecond, 0}},
	} {
		d, calls := swiper()
		res := mustRun(t, "swipe", d, c.args)
		if len(*calls) != 1 || (*calls)[0] != c.want {
			t.Errorf("swipe %s: %+v, want %+v", c.args, *calls, c.want)
		}
		if res["direction"] != c.dir {
			t.Errorf("swipe %s: result direction %v", c.args, res["direction"])
		}
		if _, ok := res["fromX"]; ok {
			t.Errorf("direction mode result has coordinates: %v", res)
		}
	}
}

func TestSwipeCoordinates(t *testing.T) {
	d, calls := swiper()
	res := mustRun(t, "swipe", d, `{"from_x":0,"from_y":1,"to_x":1,"to_y":0,"duration":0.1}`)
	want := swipeCall{device.Point{X: 0, Y: 2399}, device.Point{X: 1079, Y: 0}, 100 * time.Millisecond, 0}
	if len(*calls) != 1 || (*calls)[0] != want {
		t.Fatalf("swipe: %+v, want %+v", *calls, want)
	}
	for k, v := range map[string]float64{"fromX": 0, "fromY": 1, "toX": 1, "toY": 0} {
		if got, ok := res[k]; !ok || got != v {
			t.Errorf("result %s = %v (present %v), want %v", k, got, ok, v)
		}
	}
	if _, ok := res["direction"]; ok {
		t.Errorf("coordinate mode result has a direction: %v", res)
	}
}

func TestSwipeBadInput(t *testing.T) {
	for args, wantMsg := range map[string]string{
		`{}`:                              "direction",
		`{"direction":"up","from_x":0.5}`: "not both",
		`{"from_x":0.5,"from_y":0.5}`:     "missing to_x, to_y",
		`{"direction":"sideways"}`:        "up, down, left or right",
		`{"from_x":0,"from_y":0,"to_x":0,"to_y":1.5}`:        "to_y",
		`{"direction":"up","duration":61}`:                   "duration",
		`{"direction":"up","press_duration":-0.1}`:           "press_duration",
		`{"direction":"up","velocity":3}`:                    "unknown field",
		`{"direction":"up","speed":"fast"}`:                  "bbox mode",
		`{"direction":5}`:                                    "string",
		`{"from_x":null,"from_y":0,"to_x":0,"to_y":0}`:       "missing from_x",
		`{"direction":"` + strings.Repeat("u", 1<<16) + `"}`: "up, down, left or right",
	} {
		d, calls := swiper()
		_, err := runOp(t, "swipe", d, args)
		wantCode(t, err, broker.CodeBadInput)
		if !strings.Contains(err.Error(), wantMsg) {
			t.Errorf("swipe %.80s: %v; want it to mention %q", args, err, wantMsg)
		}
		if len(*calls) != 0 || len(d.Calls()) != 0 {
			t.Errorf("bad input reached the driver: %v", d.Calls())
		}
	}
}

func TestSwipeUnsupported(t *testing.T) {
	_, err := runOp(t, "swipe", newFake(), `{"direction":"up"}`)
	wantCode(t, err, broker.CodeUnsupported)
	_, err = runOp(t, "drag", newFake(), `{"from_x":0,"from_y":0,"to_x":1,"to_y":1}`)
	wantCode(t, err, broker.CodeUnsupported)
}

func TestDrag(t *testing.T) {
	d, calls := swiper()
	res := mustRun(t, "drag", d, `{"from_x":0,"from_y":0,"to_x":1,"to_y":1}`)
	want := swipeCall{device.Point{X: 0, Y: 0}, device.Point{X: 1079, Y: 2399}, time.Second, 500 * time.Millisecond}
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
