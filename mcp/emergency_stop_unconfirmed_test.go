package mcp_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// emergency_stop on a rig whose controller froze holds the halt though the controller cannot
// confirm it: the answer stays an error (docs/arm.md: a person must act, the device may still be
// moving), but its structured result says halted true and confirmed false, and its message says
// to cut the power. It answered an error with no structured result at all, so an agent could
// not read that the rig was halted. A stop the controller confirms omits confirmed.
func TestEmergencyStopOnAFrozenControllerSaysHaltedUnconfirmed(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw, err := twin.Start(twin.Options{Seed: 11, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })
	f.ServeArmTwin("n1", tw)
	serial := tw.Phone.Info().Serial
	op := f.Client("operator")

	tw.GRBL.Stall(time.Hour) // frozen, as kill -STOP leaves it
	res := farmtest.Call(t, op, "emergency_stop", map[string]any{"serial": serial})
	tw.GRBL.StallUntil(time.Time{})
	if !res.IsError {
		t.Fatalf("a stop a frozen controller did not confirm answered as confirmed: %s", farmtest.Text(res))
	}
	out := stopResult(t, op, res)
	if !out.Halted || out.Confirmed == nil || *out.Confirmed {
		t.Errorf("structured result: halted %v, confirmed %v; want halted true, confirmed false", out.Halted, out.confirmed())
	}
	for _, want := range []string{"held until arm_recover", "did not confirm the stop", "cut its power", "Recorded as task "} {
		if !strings.Contains(out.Message, want) {
			t.Errorf("message %q does not say %q", out.Message, want)
		}
	}
	// The advice once: the rig's driver gives it, and the gateway said it again in other words.
	if n := strings.Count(out.Message, "cut its power") + strings.Count(out.Message, "power the rig off"); n != 1 {
		t.Errorf("message %q tells %d times to cut the power, want once", out.Message, n)
	}

	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateUnhealthy && strings.Contains(d.Reason, "emergency_stop")
	}, "the rig halted once its controller answers")
	farmtest.MustCall(t, op, "arm_recover", map[string]any{"serial": serial})
	out = stopResult(t, op, farmtest.MustCall(t, op, "emergency_stop", map[string]any{"serial": serial}))
	if !out.Halted || out.Confirmed != nil {
		t.Errorf("a confirmed stop: halted %v, confirmed %v; want halted true, confirmed omitted", out.Halted, out.confirmed())
	}
}

type stopAnswer struct {
	Message   string   `json:"message"`
	Aborted   []string `json:"aborted"`
	Halted    bool     `json:"halted"`
	Confirmed *bool    `json:"confirmed"`
}

// confirmed is Confirmed as the wire has it: omitted, true or false.
func (a stopAnswer) confirmed() string {
	if a.Confirmed == nil {
		return "omitted"
	}
	return strconv.FormatBool(*a.Confirmed)
}

// stopResult decodes emergency_stop's structured result, checked against the output schema
// the server declares (farmtest.Call skips error results: an error's need not match).
func stopResult(t *testing.T, c *client.Client, res *mcpgo.CallToolResult) stopAnswer {
	t.Helper()
	var out stopAnswer
	farmtest.Structured(t, res, &out)
	list, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name != "emergency_stop" {
			continue
		}
		raw, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &v)
		if err := r.Validate(v); err != nil {
			t.Errorf("structured result %s does not match the output schema: %v", b, err)
		}
		return out
	}
	t.Fatal("tools/list has no emergency_stop")
	return out
}
