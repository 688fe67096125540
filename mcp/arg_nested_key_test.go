package mcp

import (
	"strings"
	"testing"
)

// A key that a step of sequence does not take is told in the step's words, not as an
// argument of sequence ("sequence takes: lease, platform, serial, step1, …"); a key that
// sequence itself does not take still lists sequence's arguments.
func TestSequenceStepKeyIsToldInTheStep(t *testing.T) {
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"steps": []any{map[string]any{"tool_name": "tap_xy", "args": map[string]any{"x": 0.5, "y": 0.5}, "bogus": 1}}},
			[]string{`unknown key "bogus" in steps[0]; steps[0] takes: tool_name, args, arg`}},
		{map[string]any{"step1": map[string]any{"tool_name": "home"}, "step2": map[string]any{"tool_name": "home", "bogus": 1}},
			[]string{`unknown key "bogus" in step2; step2 takes: tool_name, args, arg`}},
		{map[string]any{"steps": []any{map[string]any{"tool_name": "home"}}, "bogus": 1},
			[]string{`unknown argument "bogus"; sequence takes: lease, platform, serial, step1`}},
	} {
		farm := newFakeFarm(t)
		c.args["serial"] = phone
		res := call(t, newTestClient(t, farm), "sequence", c.args)
		wantError(t, res, c.want...)
		if text := resultText(res); c.args["bogus"] == nil && strings.Contains(text, "sequence takes") {
			t.Errorf("%v: %s", c.args, text)
		}
		if len(farm.Runs()) != 0 {
			t.Errorf("%v reached the farm", c.args)
		}
	}
}
