package tools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

func TestFormatNumber(t *testing.T) {
	for x, want := range map[float64]string{
		86400000: "86400000", 3600000: "3600000", 0: "0", -1: "-1", 0.25: "0.25", 1.5: "1.5",
		1e20: "100000000000000000000", 1e21: "1e+21", 1e308: "1e+308", 1e-7: "1e-07",
	} {
		if got := tools.FormatNumber(x); got != want {
			t.Errorf("FormatNumber(%v) = %q, want %q", x, got, want)
		}
	}
	for ms, want := range map[float64]string{
		86400000: "86400000 (24 h)", 3600000: "3600000 (1 h)", 90000: "90000 (90 s)",
		120000: "120000 (2 min)", 1000: "1000 (1 s)", 1500: "1500", 1: "1", 0: "0",
	} {
		if got := tools.FormatMillis(ms); got != want {
			t.Errorf("FormatMillis(%v) = %q, want %q", ms, got, want)
		}
	}
}

// A limit reads as the number it is (3600000, not 3.6e+06), and a bound on one side reads
// "at least 0", not "between at least 0".
func TestLimitsInMessagesReadAsWritten(t *testing.T) {
	for _, c := range []struct {
		args string
		v    any
		want string
	}{
		{`{"milliseconds":3600001}`, &tools.SleepMSArgs{}, "milliseconds must be between 0 and 3600000 ms (1 h), got 3600001"},
		{`{"x":-1,"y":1}`, &tools.SecondaryClickArgs{}, "x must be at least 0, got -1"},
		{`{"params":[1,4000]}`, &tools.SleepRandomArgs{}, "params[1] must be between 0 and 3600, got 4000"},
	} {
		err := tools.DecodeArgs([]byte(c.args), c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "e+") {
			t.Errorf("%s: %v, want %q", c.args, err, c.want)
		}
	}
}

// A null item of an array argument is refused as null: encoding/json would make it "" or 0,
// which the checks then blamed for its length (or took as 0 seconds).
func TestNullArrayItemIsRefused(t *testing.T) {
	for _, c := range []struct {
		args string
		v    any
		want string
	}{
		{`{"params":[null]}`, &tools.SleepRandomArgs{}, "params[0] must be a number, got null"},
		{`{"imagePath":"/tmp/x.png","tap_offset":[1,null]}`, &tools.TapCVArgs{}, "tap_offset[1] must be a whole number, got null"},
	} {
		err := tools.DecodeArgs([]byte(c.args), c.v)
		if err == nil || tools.ErrorCode(err) != broker.CodeBadInput || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want bad_input %q", c.args, err, c.want)
		}
	}
	if err := tools.DecodeArgs([]byte(`{"params":[0.5]}`), &tools.SleepRandomArgs{}); err != nil {
		t.Errorf("params [0.5]: %v", err)
	}
}

// get_source with a blank packageName is refused as blank, not run with a message telling the
// caller to launch "   ".
func TestGetSourceBlankPackageName(t *testing.T) {
	p := sim.New("sim-blank")
	defer p.Close()
	op := tools.DefaultOps()["get_source"]
	_, err := op.Run(context.Background(), &tools.Task{Driver: p, Args: []byte(`{"packageName":"   "}`)})
	if err == nil || tools.ErrorCode(err) != broker.CodeBadInput || !strings.Contains(err.Error(), "packageName is blank") ||
		strings.Contains(err.Error(), "launch") {
		t.Fatalf("a blank packageName: %v", err)
	}
	if n := len(p.InputLog()); n != 0 {
		t.Errorf("the refused call acted on the phone: %q", p.InputLog())
	}
	for _, args := range []string{`{}`, `{"packageName":""}`, `{"packageName":"com.corral.notes"}`} {
		if _, err := op.Run(context.Background(), &tools.Task{Driver: p, Args: []byte(args)}); err != nil {
			t.Errorf("get_source %s: %v", args, err)
		}
	}
}
