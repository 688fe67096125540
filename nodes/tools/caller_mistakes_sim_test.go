package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// The simulated phone (corral up --sim) answers the caller's mistakes as the real drivers do:
// bad_input, not driver_error (which counts against the device): an app it has not (the
// example in docs/scripted-runs.md), a key it has not, text with no field focused. A sequence stopped by one keeps its code, after earlier steps too.
func TestCallerMistakesOnTheSimulatedPhoneAreBadInput(t *testing.T) {
	p := sim.New("sim-local-01")
	for _, c := range []struct{ tool, args, says string }{
		{"app_launch", `{"packageName":"com.example.nope"}`, `"com.example.nope" is not installed`},
		{"app_terminate", `{"packageName":"com.example.nope"}`, `"com.example.nope" is not installed`},
		{"press_button", `{"button":"MENU"}`, "unknown key"},
		{"input", `{"text":"hello"}`, "no text field has focus"},
		{"sequence", `{"steps":[{"tool_name":"home"},{"tool_name":"input","arg":"hello"}]}`, "Step 1 ran"},
	} {
		_, err := tools.DefaultOps()[c.tool].Run(context.Background(), &tools.Task{Driver: p, Args: json.RawMessage(c.args)})
		if got := tools.ErrorCode(err); got != broker.CodeBadInput || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s %s: code %s, want bad_input saying %q (%v)", c.tool, c.args, got, c.says, err)
		}
	}
}
