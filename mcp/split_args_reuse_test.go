package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/corral-farm/corral/nodes/tools"
)

// A call that gives a tool none of its own arguments (serial and lease only: most calls of
// most tools) reuses the decoding of no arguments, which the tool's type alone decides: the
// same JSON, or the same refusal, as decoding afresh, and no allocation.
func TestSplitArgsOfCommonArgumentsAloneReusesTheirDecoding(t *testing.T) {
	common := map[string]any{argSerial: "n1-p1", argLease: "lease_abc", argTimeoutMS: float64(5000)}
	for _, name := range []string{"get_screen_size", "tap_xy"} { // tap_xy needs x and y: a refusal
		spec, ok := tools.Lookup(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		newArgs := func() any { return reflect.New(spec.Args).Interface() }
		want, wantErr := ownArgs(nil, newArgs())
		var bare noOwnArgs
		for range 2 {
			raw, got, err := splitArgs(common, newArgs, &bare)
			if string(raw) != string(want) || errText(err) != errText(wantErr) {
				t.Fatalf("%s: splitArgs = %s, %v; decoded afresh: %s, %v", name, raw, err, want, wantErr)
			}
			if got.Serial != "n1-p1" || got.Lease != "lease_abc" || got.TimeoutMS != 5000 {
				t.Fatalf("%s: common arguments %+v", name, got)
			}
		}
		if !raceEnabled {
			if n := testing.AllocsPerRun(100, func() { rawSink, _, _ = splitArgs(common, newArgs, &bare) }); n != 0 {
				t.Errorf("%s: splitArgs of the common arguments alone makes %v allocations, want 0", name, n)
			}
		}
	}
	// Own arguments are decoded each time, into a new struct.
	spec, _ := tools.Lookup("tap_xy")
	var bare noOwnArgs
	for _, x := range []float64{0.25, 0.75} {
		raw, _, err := splitArgs(map[string]any{argSerial: "n1-p1", "x": x, "y": 0.5}, func() any { return reflect.New(spec.Args).Interface() }, &bare)
		var got struct{ X float64 }
		if err != nil || json.Unmarshal(raw, &got) != nil || got.X != x {
			t.Fatalf("tap_xy x=%v: splitArgs = %s, %v", x, raw, err)
		}
	}
}

var rawSink json.RawMessage

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
