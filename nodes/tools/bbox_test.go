package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// The bbox gestures act at the bbox's centre: relative centre × (size-1), rounded.
func TestBBoxGesturesHitTheCentre(t *testing.T) {
	for _, c := range []struct {
		bbox string
		want device.Point
	}{
		{`[0.2,0.4,0.4,0.6]`, device.Point{X: 324, Y: 1200}},  // centre (0.3, 0.5): 0.3×1079 = 323.7, 0.5×2399 = 1199.5
		{`[0,0,0.002,0.001]`, device.Point{X: 1, Y: 1}},       // (0.001, 0.0005): 1.079, 1.1995
		{`[0.999,0.999,1,1]`, device.Point{X: 1078, Y: 2398}}, // (0.9995, 0.9995): 1078.46, 2397.8
		{`[0,0,1,1]`, device.Point{X: 540, Y: 1200}},          // the whole screen: its middle
		{`[0.1,0.25,0.3,0.5]`, device.Point{X: 216, Y: 900}},  // (0.2, 0.375): 215.8, 899.625
	} {
		d := newAbled()
		var taps, doubles []device.Point
		var holds []time.Duration
		d.TapFn = func(_ context.Context, p device.Point, h time.Duration) error {
			taps, holds = append(taps, p), append(holds, h)
			return nil
		}
		d.DoubleTapFn = func(_ context.Context, p device.Point) error { doubles = append(doubles, p); return nil }
		res := mustRun(t, "tap", d, `{"bbox":`+c.bbox+`}`)
		mustRun(t, "long_press", d, `{"bbox":`+c.bbox+`}`)
		mustRun(t, "double_tap", d, `{"bbox":`+c.bbox+`}`)
		if len(taps) != 2 || taps[0] != c.want || taps[1] != c.want || len(doubles) != 1 || doubles[0] != c.want {
			t.Errorf("bbox %s: taps %v double taps %v, want all at %v", c.bbox, taps, doubles, c.want)
		}
		if holds[0] != 0 || holds[1] != LongPressHold || LongPressHold != 1200*time.Millisecond {
			t.Errorf("holds %v: tap holds 0, long_press %v", holds, LongPressHold)
		}
		if res["x"] != float64(c.want.X) || res["y"] != float64(c.want.Y) || len(res["bbox"].([]any)) != 4 {
			t.Errorf("result %v", res)
		}
		if h, _ := res["hint"].(string); !strings.Contains(h, "peek") {
			t.Errorf("tap result has no PhysiClaw hint: %v", res)
		}
	}
}

func TestBBoxBadInput(t *testing.T) {
	for args, want := range map[string]string{
		`{}`:                              "bbox is required",
		`{"bbox":null}`:                   "bbox is required",
		`{"bbox":[]}`:                     "4 numbers",
		`{"bbox":[0.1,0.2,0.3]}`:          "4 numbers",
		`{"bbox":[0.1,0.2,0.3,0.4,0.5]}`:  "4 numbers",
		`{"bbox":[0.3,0.2,0.1,0.4]}`:      "left < right",
		`{"bbox":[0.1,0.4,0.3,0.4]}`:      "top < bottom",
		`{"bbox":[0.1,0.2,0.3,1.5]}`:      "bbox[3] must be between 0 and 1",
		`{"bbox":[-0.1,0.2,0.3,0.4]}`:     "bbox[0]",
		`{"bbox":["a",0.2,0.3,0.4]}`:      "cannot unmarshal",
		`{"bbox":{"l":0}}`:                "cannot unmarshal",
		`{"bbox":[0,0,1,1],"x":0.5}`:      "unknown field",
		`{"bbox":[0,0,1,1],"duration":2}`: "unknown field",
	} {
		for _, op := range []string{"tap", "double_tap", "long_press"} {
			d := newAbled()
			_, err := runOp(t, op, d, args)
			wantCode(t, err, broker.CodeBadInput)
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: %v; want it to mention %q", op, args, err, want)
			}
			if len(d.Calls()) != 0 {
				t.Errorf("%s %s reached the driver: %v", op, args, d.Calls())
			}
		}
	}
}

func TestDoubleTapBBoxUnsupported(t *testing.T) {
	d := newFake()
	_, err := runOp(t, "double_tap", d, `{"bbox":[0,0,1,1]}`)
	wantCode(t, err, broker.CodeUnsupported)
	if len(d.Calls()) != 0 {
		t.Errorf("an unsupported gesture touched the driver: %v", d.Calls())
	}
	mustRun(t, "tap", d, `{"bbox":[0,0,1,1]}`) // every driver taps
	d.TapFn = func(context.Context, device.Point, time.Duration) error { return errDriver }
	_, err = runOp(t, "long_press", d, `{"bbox":[0,0,1,1]}`)
	wantCode(t, err, broker.CodeDriver)
}
