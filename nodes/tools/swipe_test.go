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

// swipe_direction and swipe_coordinate are swipe's two HttpRunner modes, sharing its code.
func TestSwipeDirectionAndCoordinate(t *testing.T) {
	for _, c := range []struct{ tool, args, same, dir string }{
		{"swipe_direction", `{"direction":"UP","duration":1,"press_duration":0.5}`, `{"direction":"up","duration":1,"press_duration":0.5}`, "up"},
		{"swipe_direction", `{"direction":"left"}`, `{"direction":"left"}`, "left"},
		{"swipe_coordinate", `{"from_x":0,"from_y":1,"to_x":1,"to_y":0,"duration":0.1}`, `{"from_x":0,"from_y":1,"to_x":1,"to_y":0,"duration":0.1}`, ""},
	} {
		d, calls := swiper()
		res := mustRun(t, c.tool, d, c.args)
		s, same := swiper()
		mustRun(t, "swipe", s, c.same)
		if len(*calls) != 1 || (*calls)[0] != (*same)[0] {
			t.Errorf("%s %s: %+v; swipe did %+v", c.tool, c.args, *calls, *same)
		}
		if res["message"] == "" || !strings.Contains(res["hint"].(string), "peek") {
			t.Errorf("%s: result %v", c.tool, res)
		}
		if c.tool == "swipe_direction" && res["direction"] != c.dir {
			t.Errorf("direction %v", res["direction"])
		}
		if c.tool == "swipe_coordinate" && (res["fromX"] != 0.0 || res["fromY"] != 1.0 || res["toX"] != 1.0 || res["toY"] != 0.0) {
			t.Errorf("coordinates %v", res)
		}
	}
	for tool, list := range map[string][]string{
		"swipe_direction":  {`{}`, `{"direction":""}`, `{"direction":"sideways"}`, `{"direction":"up","from_x":0}`, `{"direction":"up","bbox":[0,0,1,1]}`, `{"direction":"up","duration":61}`},
		"swipe_coordinate": {`{}`, `{"from_x":0,"from_y":0,"to_x":1}`, `{"from_x":0,"from_y":0,"to_x":1,"to_y":2}`, `{"from_x":0,"from_y":0,"to_x":1,"to_y":1,"direction":"up"}`},
	} {
		for _, args := range list {
			d, calls := swiper()
			_, err := runOp(t, tool, d, args)
			wantCode(t, err, broker.CodeBadInput)
			if len(*calls) != 0 {
				t.Errorf("%s %s reached the driver", tool, args)
			}
		}
	}
	_, err := runOp(t, "swipe_direction", newFake(), `{"direction":"up"}`)
	wantCode(t, err, broker.CodeUnsupported)
	_, err = runOp(t, "swipe_coordinate", newFake(), `{"from_x":0,"from_y":0,"to_x":1,"to_y":1}`)
	wantCode(t, err, broker.CodeUnsupported)
	_, err = runOp(t, "swipe_coordinate", newFake(), `{}`)
	if !strings.Contains(err.Error(), "from_x, from_y, to_x and to_y are required") {
		t.Errorf("swipe_coordinate {}: %v", err)
	}
}
