package mcp

import (
	"strings"
	"testing"
)

// A principal that may call sequence and tap but not input is refused a sequence with an input
// step as denied, before that step's arguments are looked at: the refusal names the rule, not
// input's arguments (text, ...), in either step form and whatever the name's case. A step of a
// tool it may call still has its arguments checked.
func TestSequenceStepOutsideTheRuleIsDeniedBeforeItsArguments(t *testing.T) {
	const token = "tapper-token-8d1e6c3a9f2b"
	pol, err := ParsePolicy([]byte("principals:\n  - name: tapper\n    token: "+token+"\n    tools: [sequence, tap]\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	farm := newFakeFarm(t)
	h := startHTTPGateway(t, farm, Options{Policy: pol})
	c := h.mustConnect(t, token)

	for _, args := range []map[string]any{
		{"serial": "emulator-5554", "steps": []any{
			map[string]any{"tool_name": "tap", "arg": []any{0.1, 0.1, 0.2, 0.2}},
			map[string]any{"tool_name": "input", "args": map[string]any{"nope": 1}},
		}},
		{"serial": "emulator-5554", // PhysiClaw form; the node lower-cases and trims the name
			"step1": map[string]any{"tool_name": "tap", "arg": []any{0.1, 0.1, 0.2, 0.2}},
			"step2": map[string]any{"tool_name": " Input ", "arg": 5},
		},
	} {
		res := callTool(t, "sequence", c, args)
		wantError(t, res, "refused (denied)", `principal "tapper" may not call input, which step 2 of sequence names (rule: tools [sequence tap])`)
		if text := resultText(res); strings.Contains(text, "text") || strings.Contains(text, "nope") || strings.Contains(text, "argument") {
			t.Errorf("the refusal tells of input's arguments: %s", text)
		}
	}
	if got := h.denied(reasonTool); got != 2 {
		t.Errorf("corral_gateway_denied_total{reason=tool} = %v, want 2", got)
	}

	// A step it may call: its arguments are checked as before.
	res := callTool(t, "sequence", c, map[string]any{"serial": "emulator-5554", "steps": []any{
		map[string]any{"tool_name": "tap", "args": map[string]any{"nope": 1}},
	}})
	wantError(t, res, "refused (bad_input)", "step 1: tap:", `"nope"`)
	if n := touches(farm); n != 0 {
		t.Fatalf("refused sequences reached the farm %d times", n)
	}
}
