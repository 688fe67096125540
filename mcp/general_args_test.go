package mcp_test

import (
	"context"
	"maps"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// hrpOptions are HttpRunner's six general options as a step sets them; HttpRunner adds them
// to the arguments of whatever tool the step calls.
var hrpOptions = map[string]any{"pre_mark_operation": true, "anti_risk": false, "ignore_NotFoundError": true,
	"regex": true, "max_retry_times": 3, "index": -1}

// hrpArgs are args with platform and serial, as HttpRunner's clients send them on every call,
// and the six general options.
func hrpArgs(serial string, args map[string]any) map[string]any {
	out := map[string]any{"platform": "android", "serial": serial}
	maps.Copy(out, hrpOptions)
	maps.Copy(out, args)
	return out
}

// QA pass Y: the gateway's own tools refused what HttpRunner's clients send with every call
// (release_device: unknown argument "platform"; list_available_devices: "serial";
// select_device: "anti_risk"), though the docs promise every HttpRunner tool takes them.
func TestGatewayToolsTakeHttpRunnersGeneralArguments(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 2, Quiet: true})
	c := f.ClientWithProtocol("hrp", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	ok := func(tool string, args map[string]any) *mcpgo.CallToolResult {
		t.Helper()
		res := farmtest.Call(t, c, tool, args)
		require.False(t, res.IsError, "%s %v: %s", tool, args, farmtest.Text(res))
		return res
	}

	var sel mcp.SelectDeviceResult
	farmtest.Structured(t, ok("select_device", hrpArgs("n1-p1", nil)), &sel)
	assert.Equal(t, "n1-p1", sel.Lease.Serial)

	var list mcp.DeviceListResult
	farmtest.Structured(t, ok("list_available_devices", hrpArgs("n1-p1", nil)), &list)
	assert.Equal(t, []string{"n1-p1"}, list.AndroidDevices, "serial lists only that device")
	assert.Equal(t, 1, list.Summary.Total)

	ok("get_device_status", hrpArgs("n1-p1", nil))
	ok("home", hrpArgs("n1-p1", nil))
	var id string
	farmtest.Eventually(t, 10*time.Second, func() bool {
		h, err := f.Gateway().Client.TaskHistory(context.Background(), broker.HistoryQuery{Serial: "n1-p1", Tool: "home", Limit: 1})
		if err == nil && len(h.Tasks) == 1 {
			id = h.Tasks[0].ID
		}
		return id != ""
	}, "home's task record")
	var rec mcp.TaskRecordResult
	farmtest.Structured(t, ok("get_task_result", hrpArgs("n1-p1", map[string]any{"task_id": id})), &rec)
	assert.Equal(t, "home", rec.Tool)
	ok("get_latest_task", hrpArgs("n1-p1", nil))
	ok("abort_task", hrpArgs("n1-p1", nil))
	ok("list_leases", hrpArgs("n1-p1", nil))

	var acq mcp.AcquireResult
	farmtest.Structured(t, ok("acquire_device", hrpArgs("n1-p2", nil)), &acq)
	ok("emergency_stop", hrpArgs("n1-p2", nil))
	ok("release_device", hrpArgs("n1-p2", map[string]any{"lease": acq.Lease.Handle}))
	ok("release_device", hrpArgs("n1-p1", nil)) // the selection
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return len(f.Devices()) == 2 && f.Devices()[0].State == broker.StateOnline && f.Devices()[1].State == broker.StateOnline
	}, "both devices free after their release")
}

// The general arguments are checked as the device tools check them: a value of the wrong type
// or out of bounds, an unknown platform, and a platform that is not the device's are refused,
// and nothing runs.
func TestGatewayToolsCheckHttpRunnersGeneralArguments(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	c := f.Client("hrp")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"release_device", map[string]any{"platform": "ios", "serial": "n1-p1"}, []string{"device n1-p1 is android, not ios"}},
		{"emergency_stop", map[string]any{"platform": "web", "serial": "n1-p1"}, []string{"device n1-p1 is android, not web"}},
		{"abort_task", map[string]any{"platform": "ios", "serial": "n1-p1"}, []string{"device n1-p1 is android, not ios"}},
		{"get_task_result", map[string]any{"platform": "andriod", "task_id": "t1"}, []string{`unknown platform "andriod"`, `did you mean "android"?`}},
		{"list_available_devices", map[string]any{"platform": "ios", "serial": "n1-p1"}, []string{"device n1-p1 is android, not ios"}},
		{"list_available_devices", map[string]any{"serial": "n9-p9"}, []string{`unknown device "n9-p9"`}},
		{"emergency_stop", map[string]any{"platform": 7, "serial": "n1-p1"}, []string{"platform must be a string, got a number"}},
		{"get_latest_task", map[string]any{"serial": []any{"n1-p1"}}, []string{"serial must be a string, got an array"}},
		{"select_device", map[string]any{"serial": "n1-p1", "anti_risk": "yes"}, []string{"anti_risk must be a boolean, got a string"}},
		{"list_available_devices", map[string]any{"max_retry_times": 99}, []string{"max_retry_times", "50"}},
		{"release_device", map[string]any{"index": 1.5}, []string{"index must be a whole number"}},
		// A misspelt option is still unknown, and the answer lists what the tool takes: its
		// own arguments, with platform and serial in the httprunner profile's tools.
		{"release_device", map[string]any{"anti_rsik": true}, []string{`unknown argument "anti_rsik"`, "release_device takes: lease, platform, serial"}},
	} {
		res := farmtest.Call(t, c, tc.tool, tc.args)
		require.True(t, res.IsError, "%s %v ran: %s", tc.tool, tc.args, farmtest.Text(res))
		for _, w := range tc.want {
			assert.Contains(t, farmtest.Text(res), w, "%s %v", tc.tool, tc.args)
		}
	}
	d := f.Devices()
	require.Len(t, d, 1)
	assert.Equal(t, broker.StateOnline, d[0].State, "a refused call changed the device")
}

// HttpRunner's select_device with no serial takes the first device of the platform. Corral
// takes the first free one the caller may use, as list_available_devices orders them, and says
// which; asked again, it keeps the caller's selection; with none free it says why.
func TestSelectDeviceWithoutSerialTakesTheFirstFreeDevice(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 3, Quiet: true})
	other := f.Client("other")
	farmtest.MustCall(t, other, "acquire_device", map[string]any{"serial": "n1-p1"})

	hrp := f.ClientWithProtocol("hrp", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	var sel mcp.SelectDeviceResult
	farmtest.Structured(t, farmtest.MustCall(t, hrp, "select_device", map[string]any{"platform": "android", "anti_risk": true}), &sel)
	assert.Equal(t, "n1-p2", sel.Lease.Serial, "the first free android device")
	assert.Contains(t, sel.Message, "Selected device n1-p2 (android")
	assert.Contains(t, sel.Message, "no serial given: the first free android device, as list_available_devices lists them")
	farmtest.MustCall(t, hrp, "tap_xy", map[string]any{"x": 0.5, "y": 0.5}) // runs under the selection

	text := farmtest.Text(farmtest.MustCall(t, hrp, "select_device", map[string]any{"platform": "android"}))
	assert.Contains(t, text, "Device n1-p2 is already selected", "asking again moved the selection")

	third := f.Client("third")
	farmtest.Structured(t, farmtest.MustCall(t, third, "select_device", map[string]any{"serial": ""}), &sel)
	assert.Equal(t, "n1-p3", sel.Lease.Serial, "the first free device of any platform")

	res := farmtest.Call(t, f.Client("fourth"), "select_device", map[string]any{"platform": "android"})
	require.True(t, res.IsError, "a fourth caller got a device: %s", farmtest.Text(res))
	for _, w := range []string{"no android device is free", "n1-p1 leased", "n1-p2 leased", "n1-p3 leased", "acquire_device with wait_seconds"} {
		assert.Contains(t, farmtest.Text(res), w)
	}
	res = farmtest.Call(t, f.Client("fourth"), "select_device", map[string]any{"platform": "ios"})
	require.True(t, res.IsError, "an ios device selected in a farm of android phones: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "no ios device is in the farm: it has n1-p1 (android")
}
