package mcp_test

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// The gateway's own refusals name their code as a node's do, "TOOL refused (CODE): …": a tool
// result has no code field, so the text is where an agent tells its own mistake (bad_input)
// from the farm's state or a policy. They named none, and a node's did.
func TestGatewayRefusalsNameTheirCode(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 2, Quiet: true})
	c := f.Client("alice")
	const serial, held = "n1-p1", "n1-p2"
	farmtest.MustCall(t, f.Client("bob"), "acquire_device", map[string]any{"serial": held})
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		code  string
		words string // the refusal's own words, kept after the code
	}{
		{"acquire_device", map[string]any{"platform": "andriod"}, broker.CodeBadInput, `unknown platform "andriod"`},
		{"acquire_device", map[string]any{"wait_seconds": "soon"}, broker.CodeBadInput, "wait_seconds"},
		{"acquire_device", map[string]any{"model": "no-such-model"}, broker.CodeUnknownDevice, "no device matches"},
		{"select_device", map[string]any{"platform": "andriod"}, broker.CodeBadInput, `unknown platform "andriod"`},
		{"list_available_devices", map[string]any{"bogus": 1}, broker.CodeBadInput, "unknown argument"},
		{"list_leases", map[string]any{"platform": "andriod"}, broker.CodeBadInput, `unknown platform "andriod"`},
		{"get_task_result", map[string]any{}, broker.CodeBadInput, "task_id is required"},
		{"get_task_result", map[string]any{"task_id": "not an id!"}, broker.CodeBadInput, "task_id"},
		{"get_task_result", map[string]any{"task_id": broker.NewTaskID()}, "unknown_task", "no record of task"},
		{"acquire_device", map[string]any{"serial": held}, broker.CodeBusy, "could be leased: acquire_device on n1-p2 refused (busy)"},
		{"acquire_device", map[string]any{"count": 3}, broker.CodeUnknownDevice, "only 2 devices match"},
		{"acquire_device", map[string]any{"count": 2}, broker.CodeBusy, "could not lease 2 devices"},
		{"get_latest_task", map[string]any{"bogus": 1}, broker.CodeBadInput, "unknown argument"},
		{"get_device_status", map[string]any{"bogus": 1}, broker.CodeBadInput, "unknown argument"},
		{"emergency_stop", map[string]any{}, broker.CodeBadInput, "serial is required"},
		{"emergency_stop", map[string]any{"serial": "nope"}, broker.CodeUnknownDevice, `unknown device "nope"`},
		{"abort_task", map[string]any{"task_id": 5}, broker.CodeBadInput, "task_id"},
		{"abort_task", map[string]any{"serial": "nope"}, broker.CodeUnknownDevice, `unknown device "nope"`},
		{"abort_task", map[string]any{"lease": broker.NewLeaseHandle()}, broker.CodeStaleLease, "no lease held now has this handle"},
		{"release_device", map[string]any{"bogus": 1}, broker.CodeBadInput, "unknown argument"},
		{"release_device", map[string]any{"serial": serial}, broker.CodeBadInput, "lease is required"},
		{"release_device", map[string]any{"lease": broker.NewLeaseHandle()}, broker.CodeStaleLease, "this lease is no longer known"},
		{"tap_xy", map[string]any{"serial": serial, "x": 2, "y": 0.5}, broker.CodeBadInput, "x must be between 0 and 1"},
		{"tap_xy", map[string]any{"serial": serial, "platform": "ios", "x": 0.5, "y": 0.5}, broker.CodeBadInput, "device n1-p1 is android, not ios"},
		{"tap_xy", map[string]any{"x": 0.5, "y": 0.5}, broker.CodeBadInput, "serial is required"},
		{"tap_xy", map[string]any{"serial": "nope", "x": 0.5, "y": 0.5}, broker.CodeUnknownDevice, `unknown device "nope"`},
	} {
		res := farmtest.Call(t, c, tc.tool, tc.args)
		text := farmtest.Text(res)
		want := tc.tool + " refused (" + tc.code + "): "
		if !res.IsError || !strings.HasPrefix(text, want) || !strings.Contains(text, tc.words) {
			t.Errorf("%s %v: %q, want an error beginning %q and saying %q", tc.tool, tc.args, text, want, tc.words)
		}
	}
}
