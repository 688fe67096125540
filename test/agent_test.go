package test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// Bad input gets isError with a message that says what to fix, and nothing runs.
func TestBadInputIsExplainedAndChangesNothing(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	phone := f.Phone(serial)
	before := len(phone.InputLog())
	cases := []struct {
		tool string
		args map[string]any
		says []string
	}{
		{"tap_xy", args("x", 0.5, "y", 0.5), []string{"serial is required", "list_available_devices"}},
		{"tap_xy", args("serial", "no-such-phone", "x", 0.5, "y", 0.5), []string{"unknown device", "no-such-phone", "list_available_devices"}},
		{"tap_xy", args("serial", serial, "x", "left", "y", 0.5), []string{"x"}},
		{"tap_xy", args("serial", serial, "x", 1.5, "y", 0.5), []string{"x must be between 0 and 1", "tap_abs_xy"}},
		{"tap_xy", args("serial", serial, "x", -0.1, "y", 0.5), []string{"x must be between 0 and 1"}},
		{"tap_xy", args("serial", serial, "y", 0.5), []string{"x is required"}},
		{"tap_xy", args("serial", serial, "x", 0.5, "y", 0.5, "z", 1), []string{"unknown argument", "z", "tap_xy takes"}},
		{"tap_xy", args("serial", serial, "x", 0.5, "y", 0.5, "timeout_ms", -5), []string{"timeout_ms"}},
		{"tap_xy", args("serial", strings.Repeat("s", 5000), "x", 0.5, "y", 0.5), []string{"serial", "at most"}},
		{"tap_xy", args("serial", serial, "platform", "ios", "x", 0.5, "y", 0.5), []string{"is android, not ios"}},
		{"tap_xy", args("serial", serial, "lease", "lease_made_up", "x", 0.5, "y", 0.5), []string{"stale_lease", "acquire_device"}},
		{"input", args("serial", serial, "text", strings.Repeat("é", 20000)), []string{"text"}},
		{"tap_abs_xy", args("serial", serial, "x", 5000, "y", 10), []string{"5000"}},
		{"swipe", args("serial", serial, "direction", "sideways"), []string{"direction"}},
		{"sleep", args("serial", serial, "seconds", 1e9), []string{"seconds"}},
	}
	for _, tc := range cases {
		res := farmtest.Call(t, c, tc.tool, tc.args)
		if !res.IsError {
			t.Errorf("%s %v succeeded; want an error", tc.tool, tc.args)
			continue
		}
		text := farmtest.Text(res)
		for _, s := range tc.says {
			if !strings.Contains(text, s) {
				t.Errorf("%s %v: %q does not say %q", tc.tool, tc.args, text, s)
			}
		}
	}
	if got := phone.InputLog(); len(got) != before {
		t.Fatalf("bad input reached the phone: %q", got[before:])
	}
	d, _ := f.Gateway().Client.Device(serial)
	if d.State != broker.StateOnline {
		t.Fatalf("device left %s after bad input", d.State)
	}
}

// A long call sends progress notifications when the client gives a progress token.
func TestSleepReportsProgress(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	var mu sync.Mutex
	var progress []float64
	c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == string(mcpgo.MethodNotificationProgress) {
			mu.Lock()
			defer mu.Unlock()
			if p, ok := n.Params.AdditionalFields["progress"].(float64); ok {
				progress = append(progress, p)
			}
		}
	})
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "sleep"
	req.Params.Arguments = args("serial", serial, "seconds", 2.5)
	req.Params.Meta = &mcpgo.Meta{ProgressToken: "sleep-1"}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("sleep: %v %v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progress) < 2 {
		t.Fatalf("got %d progress notifications over 2.5 s; want at least 2", len(progress))
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] <= progress[i-1] {
			t.Fatalf("progress does not increase: %v", progress)
		}
	}
}

// A client with a protocol session selects a device once and then calls without a serial.
func TestSelectDeviceGivesSessionDefault(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
	serial := f.Devices()[1].Serial
	c := f.ClientWithProtocol("legacy-agent", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	res := farmtest.MustCall(t, c, "select_device", args("platform", "android", "serial", serial))
	contains(t, farmtest.Text(res), serial, "lease_")
	farmtest.MustCall(t, c, "tap_xy", args("x", 0.2, "y", 0.3))
	if log := f.Phone(serial).InputLog(); len(log) != 1 || !strings.HasPrefix(log[0], "tap ") {
		t.Fatalf("the call without serial did not reach the selected device: %q", log)
	}
	// The selection holds the device for this session only.
	other := f.Client("other")
	contains(t, farmtest.Text(farmtest.Call(t, other, "tap_xy", args("serial", serial, "x", 0.2, "y", 0.3))), "busy")
}

// An idle lease expires after its TTL and the device is free again; its handle is fenced.
func TestIdleLeaseExpires(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, LeaseTTL: 300 * time.Millisecond})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	l := acquire(t, c, args("serial", serial))
	f.WaitDevices(1, broker.StateLeased)
	f.WaitDevices(1, broker.StateOnline)
	res := farmtest.Call(t, c, "tap_xy", args("serial", serial, "lease", l.Lease.Handle, "x", 0.5, "y", 0.5))
	contains(t, farmtest.Text(res), "stale_lease")
	farmtest.MustCall(t, f.Client("next"), "tap_xy", args("serial", serial, "x", 0.5, "y", 0.5))
}
