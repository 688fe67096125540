package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
)

// strictPhone refuses arguments it does not know, without acting, as the catalog's tools do.
type strictPhone struct{ phone }

func (p strictPhone) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	var a map[string]any
	if json.Unmarshal(args, &a) == nil && a["junk"] != nil {
		return "", fmt.Errorf("%w: arguments: json: unknown field \"junk\"", agent.ErrBadArguments)
	}
	return p.phone.Call(ctx, name, args)
}

// A model that calls a tool with an argument it does not take, again and again, called tools
// wrongly: that is how the task ends, not as a loop on a screen nothing changed.
func TestRefusedCallsAreWrongCallsNotALoop(t *testing.T) {
	t.Parallel()
	junk := call("tap_xy", map[string]any{"x": 0.5, "y": 0.5, "junk": "J"})
	r := newRig(t, plan(step{Title: "Tap"}), junk, junk, junk, junk)
	o := r.options("Tap the middle")
	o.Device = strictPhone{r.phone}
	task := run(t, context.Background(), o)

	wantStatus(t, task, agent.StatusFailed)
	if !strings.Contains(task.Error, "called tools wrongly 3 turns in a row") {
		t.Errorf("error %q", task.Error)
	}
	calls := task.Steps[0].ToolCalls
	if len(calls) != 3 || !strings.Contains(calls[2].Error, `unknown field "junk"`) {
		t.Errorf("tool calls %+v", calls)
	}
	if len(task.Actions) != 0 || r.phone.taps() != 0 {
		t.Errorf("actions %v, %d taps", task.Actions, r.phone.taps())
	}
}
