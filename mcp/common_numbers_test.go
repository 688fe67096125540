package mcp

import (
	"strings"
	"testing"
)

// timeout_ms is a whole number of milliseconds, as its schema (integer) says: 1.5 is refused
// (it ran with a 1 ms deadline), in the words of the other integer arguments. Null is not
// given, for timeout_ms as for wait_seconds beside it and acquire_device's wait_seconds:
// encoding/json leaves every argument a tool decodes itself unset for null, and platform,
// serial and lease took null already.
func TestTimeoutIsWholeAndNullIsNotGiven(t *testing.T) {
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"timeout_ms": 1.5}, "timeout_ms must be a whole number of milliseconds, got 1.5"},
		{map[string]any{"timeout_ms": 0.4}, "timeout_ms must be a whole number of milliseconds, got 0.4"},
		{map[string]any{"timeout_ms": 2500.25}, "timeout_ms must be a whole number of milliseconds, got 2500.25"},
		{map[string]any{"timeout_ms": 9e7}, "timeout_ms 90000000 is above tap_xy's cap of " + capMS(t, "tap_xy") + " ms; ask for less"},
		{map[string]any{"timeout_ms": "5"}, "timeout_ms must be a number, got a string"},
	} {
		farm := newFakeFarm(t)
		c.args["serial"], c.args["x"], c.args["y"] = phone, 0.5, 0.5
		res := call(t, newTestClient(t, farm), "tap_xy", c.args)
		wantError(t, res, c.want)
		if len(farm.Runs()) != 0 {
			t.Errorf("%v reached the farm", c.args)
		}
	}

	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	wantOK(t, "tap_xy", call(t, cl, "tap_xy", map[string]any{"serial": phone, "x": 0.5, "y": 0.5, "timeout_ms": 1500.0, "wait_seconds": 0.5}))
	wantOK(t, "tap_xy", call(t, cl, "tap_xy", map[string]any{"serial": phone, "x": 0.5, "y": 0.5, "timeout_ms": nil, "wait_seconds": nil}))
	wantOK(t, "acquire_device", call(t, cl, "acquire_device", map[string]any{"serial": phone, "wait_seconds": nil}))
	runs := farm.Runs()
	if len(runs) != 2 || runs[0].TimeoutMS != 1500 || runs[0].WaitMS != 500 || runs[1].TimeoutMS != 0 || runs[1].WaitMS != 0 {
		t.Fatalf("task requests: %+v", runs)
	}
	if text := resultText(call(t, cl, "tap_xy", map[string]any{"serial": phone, "x": 0.5, "y": 0.5, "timeout_ms": 1.5})); !strings.Contains(text, "whole number") {
		t.Fatalf("1.5 after good calls: %s", text)
	}
}
