package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// A bbox swipe starts at the bbox's centre and moves size centimetres, converted through the
// device's density, in direction, over the speed's duration.
func TestSwipeBBoxMode(t *testing.T) {
	for _, c := range []struct {
		args    string
		dpi     int
		want    swipeCall
		clamped bool
	}{
		// m = 2 cm = 2/2.54×420 = 330.7 → 331 px; medium = 400 ms.
		{`{"bbox":[0.4,0.4,0.6,0.6],"direction":"up"}`, 420, swipeCall{device.Point{X: 540, Y: 1200}, device.Point{X: 540, Y: 869}, 400 * time.Millisecond, 0}, false},
		{`{"bbox":[0.4,0.4,0.6,0.6],"direction":"down","size":"m","speed":"medium"}`, 420, swipeCall{device.Point{X: 540, Y: 1200}, device.Point{X: 540, Y: 1531}, 400 * time.Millisecond, 0}, false},
		// s = 1 cm at 560 dpi = 220.5 → 220 px; fast = 150 ms.
		{`{"bbox":[0.4,0.4,0.6,0.6],"direction":"right","size":"S","speed":"FAST"}`, 560, swipeCall{device.Point{X: 540, Y: 1200}, device.Point{X: 760, Y: 1200}, 150 * time.Millisecond, 0}, false},
		// l = 4 cm at 420 = 661.4 → 661; slow = 1000 ms.
		{`{"bbox":[0.4,0.4,0.6,0.6],"direction":"left","size":"l","speed":"slow"}`, 420, swipeCall{device.Point{X: 540, Y: 1200}, device.Point{X: 0, Y: 1200}, time.Second, 0}, true},
		// xl = 6 cm at 320 dpi = 755.9 → 756.
		{`{"bbox":[0.4,0.1,0.6,0.2],"direction":"down","size":"xl"}`, 320, swipeCall{device.Point{X: 540, Y: 360}, device.Point{X: 540, Y: 1116}, 400 * time.Millisecond, 0}, false},
		// xxl = 8 cm at 420 = 1322.8 → 1323 px, clamped at the bottom edge.
		{`{"bbox":[0.4,0.4,0.6,0.6],"direction":"down","size":"xxl"}`, 420, swipeCall{device.Point{X: 540, Y: 1200}, device.Point{X: 540, Y: 2399}, 400 * time.Millisecond, 0}, true},
		{`{"bbox":[0.4,0,0.6,0.1],"direction":"down","size":"xxl","speed":"fast"}`, 420, swipeCall{device.Point{X: 540, Y: 120}, device.Point{X: 540, Y: 1443}, 150 * time.Millisecond, 0}, false},
	} {
		d, calls := swiper()
		d.DensityFn = func(context.Context) (int, error) { return c.dpi, nil }
		res := mustRun(t, "swipe", d, c.args)
		if len(*calls) != 1 || (*calls)[0] != c.want {
			t.Errorf("swipe %s: %+v, want %+v", c.args, *calls, c.want)
			continue
		}
		if res["dpi"] != float64(c.dpi) || res["durationMs"] != float64(c.want.d.Milliseconds()) || (res["clamped"] == true) != c.clamped {
			t.Errorf("swipe %s: result %v", c.args, res)
		}
		if _, ok := res["densityAssumed"]; ok {
			t.Errorf("density was known: %v", res)
		}
		if res["size"] == "" || res["speed"] == "" || res["direction"] == "" || !strings.Contains(res["hint"].(string), "peek") {
			t.Errorf("swipe %s: result %v", c.args, res)
		}
	}
}

// A driver that cannot tell its density is assumed to have 420 dpi, and the result says so.
func TestSwipeBBoxDensityFallback(t *testing.T) {
	const args = `{"bbox":[0.4,0.4,0.6,0.6],"direction":"up","size":"s"}`
	want := swipeCall{device.Point{X: 540, Y: 1200}, device.Point{X: 540, Y: 1035}, 400 * time.Millisecond, 0} // 1 cm at 420 = 165.4
	d := &fakeSwiper{fakeDriver: newFake()}
	res := mustRun(t, "swipe", d, args)
	if len(d.swipes) != 1 || d.swipes[0] != want {
		t.Fatalf("swipes %+v, want %+v", d.swipes, want)
	}
	if res["densityAssumed"] != true || res["dpi"] != 420.0 || !strings.Contains(res["message"].(string), "420 dpi assumed") {
		t.Fatalf("result should say 420 dpi was assumed: %v", res)
	}
	for _, c := range []struct {
		fn   func(context.Context) (int, error)
		note string
	}{
		{func(context.Context) (int, error) { return 0, errDriver }, "query failed (usb cable unplugged)"},
		{func(context.Context) (int, error) { return 3, nil }, "implausible 3 dpi"},
		{func(context.Context) (int, error) { return 1 << 30, nil }, "implausible 1073741824 dpi"},
	} {
		a, calls := swiper()
		a.DensityFn = c.fn
		res := mustRun(t, "swipe", a, args)
		if len(*calls) != 1 || (*calls)[0] != want || res["densityAssumed"] != true || !strings.Contains(res["message"].(string), c.note) {
			t.Errorf("%s: swipes %+v result %v", c.note, *calls, res)
		}
	}
	// A cancelled call does not fall back: it stops.
	a, calls := swiper()
	ctx, cancel := context.WithCancel(context.Background())
	a.DensityFn = func(ctx context.Context) (int, error) { cancel(); return 0, ctx.Err() }
	_, err := DefaultOps()["swipe"].Run(ctx, &Task{Driver: a, Args: []byte(args)})
	if !errors.Is(err, context.Canceled) || len(*calls) != 0 {
		t.Fatalf("cancelled density query: %v, swipes %v", err, *calls)
	}
}

// A bbox whose centre is on the edge the swipe heads for moves nowhere: refused, not sent.
func TestSwipeBBoxOnTheEdge(t *testing.T) {
	d, calls := swiper()
	_, err := runOp(t, "swipe", d, `{"bbox":[0,0.4,0.0001,0.6],"direction":"left"}`)
	wantCode(t, err, broker.CodeBadInput)
	if !strings.Contains(err.Error(), "edge") || len(*calls) != 0 {
		t.Fatalf("%v, swipes %v", err, *calls)
	}
	mustRun(t, "swipe", d, `{"bbox":[0,0.4,0.0001,0.6],"direction":"right"}`)
}

// swipe takes exactly one of its three modes.
func TestSwipeModesAreExclusive(t *testing.T) {
	for args, want := range map[string]string{
		`{"bbox":[0,0,1,1],"direction":"up","from_x":0.5}`: "exactly one mode",
		`{"bbox":[0,0,1,1]}`: "needs direction",
		`{"bbox":[0,0,1,1],"direction":"up","duration":1}`:         "not duration",
		`{"bbox":[0,0,1,1],"direction":"up","press_duration":1}`:   "not duration",
		`{"bbox":[0,0,1,1],"direction":"up","size":"huge"}`:        "size must be s, m, l, xl or xxl",
		`{"bbox":[0,0,1,1],"direction":"up","speed":"warp"}`:       "speed must be slow, medium or fast",
		`{"bbox":[0,0,1,1],"direction":"north"}`:                   "up, down, left or right",
		`{"bbox":[1,0,0,1],"direction":"up"}`:                      "left < right",
		`{"bbox":[0,0,1],"direction":"up"}`:                        "4 numbers",
		`{"direction":"up","size":"m"}`:                            "bbox mode",
		`{"from_x":0,"from_y":0,"to_x":1,"to_y":1,"speed":"slow"}`: "bbox mode",
		`{}`: "three modes",
		`{"direction":"up","from_x":0,"from_y":0,"to_x":1,"to_y":1}`: "not both",
	} {
		d, calls := swiper()
		_, err := runOp(t, "swipe", d, args)
		wantCode(t, err, broker.CodeBadInput)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("swipe %s: %v; want it to mention %q", args, err, want)
		}
		if len(*calls) != 0 || len(d.Calls()) != 0 {
			t.Errorf("bad input reached the driver: %v", d.Calls())
		}
	}
	// bbox null is no bbox: direction mode.
	d, calls := swiper()
	mustRun(t, "swipe", d, `{"bbox":null,"direction":"up"}`)
	if (*calls)[0].d != 300*time.Millisecond {
		t.Fatalf("direction mode swipe: %+v", (*calls)[0])
	}
}
