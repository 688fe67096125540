package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

const phone = "emulator-5554"

// Every device tool, called well, sends its own tool name and the arguments the node expects,
// and its structured result matches its output schema.
func TestDeviceToolsSendTheirTask(t *testing.T) {
	for _, c := range []struct {
		tool     string
		args     map[string]any
		wantArgs string // the Args the node receives
		wantData map[string]any
	}{
		{"tap_xy", map[string]any{"x": 0, "y": 1}, `{"x":0,"y":1}`, nil},
		{"tap_abs_xy", map[string]any{"x": 0, "y": 2399, "duration": 0.5}, `{"x":0,"y":2399,"duration":0.5}`, nil},
		{"double_tap_xy", map[string]any{"x": 0.5, "y": 0.5}, `{"x":0.5,"y":0.5}`, nil},
		{"swipe", map[string]any{"direction": "Up"}, `{"direction":"up"}`, map[string]any{"direction": "up"}},
		{"swipe", map[string]any{"from_x": 0, "from_y": 0.5, "to_x": 1, "to_y": 0.5, "press_duration": 0.2},
			`{"from_x":0,"from_y":0.5,"to_x":1,"to_y":0.5,"press_duration":0.2}`, map[string]any{"fromX": 0.0, "toX": 1.0}},
		{"drag", map[string]any{"from_x": 0.1, "from_y": 0.2, "to_x": 0.3, "to_y": 0.4, "duration": 800},
			`{"from_x":0.1,"from_y":0.2,"to_x":0.3,"to_y":0.4,"duration":800}`, map[string]any{"fromX": 0.1, "toY": 0.4}},
		{"input", map[string]any{"text": "hello 世界"}, `{"text":"hello 世界"}`, map[string]any{"text": "hello 世界"}},
		{"press_button", map[string]any{"button": "volume_up"}, `{"button":"VOLUME_UP"}`, map[string]any{"button": "VOLUME_UP"}},
		{"home", nil, `{}`, nil},
		{"back", map[string]any{}, `{}`, nil},
		{"list_packages", nil, `{}`, nil},
		{"app_launch", map[string]any{"packageName": "com.corral.notes"}, `{"packageName":"com.corral.notes"}`, nil},
		{"app_terminate", map[string]any{"packageName": "com.corral.notes"}, `{"packageName":"com.corral.notes"}`, nil},
		{"get_source", map[string]any{"packageName": "com.corral.notes"}, `{"packageName":"com.corral.notes"}`, map[string]any{"packageName": "com.corral.notes"}},
		{"get_source", nil, `{}`, map[string]any{"packageName": ""}},
		{"sleep", map[string]any{"seconds": 0.001}, `{"seconds":0.001}`, map[string]any{"seconds": 0.001}},
		{"sleep_ms", map[string]any{"milliseconds": 1}, `{"milliseconds":1}`, map[string]any{"milliseconds": 1.0}},
		{"get_screen_size", nil, `{}`, map[string]any{"width": 1080.0, "height": 2400.0}},
		{"screenshot", nil, `{}`, nil},
	} {
		t.Run(c.tool, func(t *testing.T) {
			farm := newFakeFarm(t)
			cl := newTestClient(t, farm)
			args := map[string]any{"serial": phone, "platform": "ANDROID"}
			for k, v := range c.args {
				args[k] = v
			}
			data := wantOK(t, c.tool, call(t, cl, c.tool, args))
			runs := farm.Runs()
			if len(runs) != 1 {
				t.Fatalf("farm got %d tasks, want 1", len(runs))
			}
			r := runs[0]
			if r.V != broker.WireVersion || r.Tool != c.tool || r.Serial != phone || r.ID == "" || r.Holder.Principal == "" {
				t.Errorf("task request %+v", r)
			}
			if string(r.Args) != c.wantArgs {
				t.Errorf("args %s, want %s", r.Args, c.wantArgs)
			}
			for k, v := range c.wantData {
				if data[k] != v {
					t.Errorf("result %s = %#v, want %#v (%v)", k, data[k], v, data)
				}
			}
			if _, ok := data["message"]; !ok && c.tool != "list_packages" && c.tool != "screenshot" {
				t.Errorf("result has no message: %v", data)
			}
		})
	}
}

// Wrong arguments come back as isError with a message that helps, and never reach the farm.
func TestDeviceToolsRefuseBadArguments(t *testing.T) {
	huge := strings.Repeat("a", 10001)
	for _, c := range []struct {
		tool string
		args any
		want []string
	}{
		{"tap_xy", map[string]any{"serial": phone, "x": 1.5, "y": 0}, []string{"x must be between 0 and 1", "tap_abs_xy"}},
		{"tap_xy", map[string]any{"serial": phone, "y": 0}, []string{"x is required"}},
		{"tap_xy", map[string]any{"serial": phone, "x": "0.5", "y": 0}, []string{"x must be a number, got a string"}},
		{"tap_xy", map[string]any{"serial": phone, "x": 0.5, "y": 0.5, "z": 1}, []string{`unknown argument "z"`, "tap_xy takes:", "anti_risk"}},
		{"tap_abs_xy", map[string]any{"serial": phone, "x": -3, "y": 0}, []string{"pixel coordinate"}},
		{"double_tap_xy", map[string]any{"serial": phone, "x": 0.5}, []string{"y is required"}},
		{"swipe", map[string]any{"serial": phone}, []string{"direction", "from_x"}},
		{"swipe", map[string]any{"serial": phone, "direction": "up", "to_x": 0.5}, []string{"not both"}},
		{"swipe", map[string]any{"serial": phone, "from_x": 0.5}, []string{"missing from_y, to_x, to_y"}},
		{"swipe", map[string]any{"serial": phone, "direction": "north"}, []string{"up, down, left or right"}},
		{"drag", map[string]any{"serial": phone, "from_x": 0, "from_y": 0, "to_x": 1, "to_y": 1, "duration": 90000}, []string{"milliseconds"}},
		{"input", map[string]any{"serial": phone, "text": huge}, []string{"10001 characters", "at most 10000"}},
		{"input", map[string]any{"serial": phone, "text": ""}, []string{"text is required"}},
		{"input", map[string]any{"serial": phone, "text": 42}, []string{"text must be a string, got a number"}},
		{"press_button", map[string]any{"serial": phone, "button": "TURBO"}, []string{"unknown button", "HOME"}},
		{"home", map[string]any{"serial": phone, "button": "HOME"}, []string{`unknown argument "button"`}},
		{"app_launch", map[string]any{"serial": phone}, []string{"packageName is required"}},
		{"app_launch", map[string]any{"serial": phone, "packageName": "x;reboot"}, []string{"packageName"}},
		{"sleep", map[string]any{"serial": phone, "seconds": 3601}, []string{"seconds must be between 0 and 3600"}},
		{"sleep_ms", map[string]any{"serial": phone, "milliseconds": 2.5}, []string{"milliseconds must be a whole number"}},
		{"get_source", map[string]any{"serial": phone, "packageName": 5}, []string{"packageName"}},
		// Common arguments.
		{"home", map[string]any{}, []string{"serial is required", "list_available_devices"}},
		{"home", map[string]any{"serial": "nope"}, []string{`unknown device "nope"`, "list_available_devices"}},
		{"home", map[string]any{"serial": phone, "platform": "ios"}, []string{"is android, not ios"}},
		{"home", map[string]any{"serial": 5}, []string{"serial must be a string"}},
		{"home", map[string]any{"serial": phone, "timeout_ms": 0}, []string{"timeout_ms"}},
		{"home", map[string]any{"serial": phone, "wait_seconds": -1}, []string{"wait_seconds"}},
		{"home", map[string]any{"serial": strings.Repeat("s", 300)}, []string{"at most 256"}},
		{"home", []any{1, 2}, []string{"arguments must be a JSON object"}},
		{"home", map[string]any{"serial": phone, strings.Repeat("k", 100000): 1}, []string{"unknown argument", "home takes:"}},
	} {
		farm := newFakeFarm(t)
		cl := newTestClient(t, farm)
		res := call(t, cl, c.tool, c.args)
		wantError(t, res, c.want...)
		if n := len(farm.Runs()); n != 0 {
			t.Errorf("%s %v reached farm.Run", c.tool, c.args)
		}
		if len(resultText(res)) > 2000 {
			t.Errorf("%s: error message is %d bytes long", c.tool, len(resultText(res)))
		}
	}
}

// Common arguments travel in the task request, not in the tool's own arguments.
func TestDeviceToolCommonArguments(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	wantOK(t, "tap_xy", call(t, cl, "tap_xy", map[string]any{"serial": phone, "x": 0.5, "y": 0.5,
		"lease": "lease_abc", "timeout_ms": 1500, "wait_seconds": 2.5}))
	r := farm.Runs()[0]
	if r.Lease != "lease_abc" || r.TimeoutMS != 1500 || r.WaitMS != 2500 || string(r.Args) != `{"x":0.5,"y":0.5}` {
		t.Fatalf("task request %+v args %s", r, r.Args)
	}
}

// A busy refusal names the holder, the expiry and the queue, and says what to do.
func TestBusyRefusalIsRendered(t *testing.T) {
	farm := newFakeFarm(t)
	expires := time.Now().Add(90 * time.Second)
	farm.RunFn = func(_ context.Context, req broker.TaskRequest, _ func(broker.Progress)) (broker.TaskResult, error) {
		return broker.TaskResult{ID: req.ID, Serial: req.Serial, Tool: req.Tool, Outcome: broker.OutcomeRefused, Code: broker.CodeBusy,
			Error: "device is leased", Lease: &broker.Lease{Serial: req.Serial, Holder: broker.Holder{Principal: "alice", Client: "claude"},
				ExpiresAt: expires, MaxUntil: expires.Add(time.Hour), QueueLen: 2}}, nil
	}
	cl := newTestClient(t, farm)
	res := call(t, cl, "home", map[string]any{"serial": phone})
	wantError(t, res, "busy", "alice (claude)", expires.UTC().Format(time.RFC3339), "2 waiting", "wait_seconds", "acquire_device")
}

// A failure of the driver comes back as isError with the node's message and the task id.
func TestDriverFailureIsRendered(t *testing.T) {
	farm := newFakeFarm(t)
	farm.RunFn = func(_ context.Context, req broker.TaskRequest, _ func(broker.Progress)) (broker.TaskResult, error) {
		return broker.TaskResult{ID: req.ID, Serial: req.Serial, Tool: req.Tool, Outcome: broker.OutcomeFailed, Code: broker.CodeDriver,
			Error: "adb: device offline", Submitted: time.Now()}, nil // a node's answer: it saw the task
	}
	cl := newTestClient(t, farm)
	res := call(t, cl, "input", map[string]any{"serial": phone, "text": "x"})
	wantError(t, res, "input on emulator-5554 failed", "driver_error", "adb: device offline", "[task t_")
}

// Unsupported abilities, as the node reports them, reach the caller with their advice.
func TestUnsupportedIsRendered(t *testing.T) {
	farm := newFakeFarm(t)
	farm.RunFn = func(_ context.Context, req broker.TaskRequest, _ func(broker.Progress)) (broker.TaskResult, error) {
		return broker.TaskResult{ID: req.ID, Serial: req.Serial, Tool: req.Tool, Outcome: broker.OutcomeRefused, Code: broker.CodeUnsupported,
			Error: "device 00008101-IPHONE (ios) cannot press BACK"}, nil
	}
	cl := newTestClient(t, farm)
	wantError(t, call(t, cl, "back", map[string]any{"serial": "00008101-IPHONE"}), "unsupported", "cannot press BACK")
}

// The session's selected device is used when serial is left out.
func TestSessionDefaultDevice(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	sel := wantOK(t, "select_device", call(t, cl, "select_device", map[string]any{"serial": phone}))
	handle := sel["lease"].(map[string]any)["handle"].(string)
	wantOK(t, "home", call(t, cl, "home", nil))
	r := farm.Runs()[0]
	if r.Serial != phone || r.Lease != handle {
		t.Fatalf("task went to %s with lease %q; want %s with %q", r.Serial, r.Lease, phone, handle)
	}
}

// The sleep tool's progress reaches the client as notifications/progress.
func TestSleepProgressReachesTheClient(t *testing.T) {
	farm := newFakeFarm(t)
	farm.RunFn = func(_ context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
		if !req.Progress || progress == nil {
			t.Error("task did not ask for progress")
		} else {
			progress(broker.Progress{TaskID: req.ID, Progress: 1, Total: 2, Message: "slept 1.0s of 2.0s"})
		}
		data, _ := json.Marshal(map[string]any{"message": "slept 2 seconds", "seconds": 2})
		return broker.TaskResult{ID: req.ID, Serial: req.Serial, Tool: req.Tool, Outcome: broker.OutcomeSucceeded, Data: data}, nil
	}
	cl := newTestClient(t, farm)
	got := make(chan string, 4)
	cl.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			msg, _ := n.Params.AdditionalFields["message"].(string)
			got <- msg
		}
	})
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "sleep"
	req.Params.Arguments = map[string]any{"serial": phone, "seconds": 2}
	req.Params.Meta = &mcpgo.Meta{ProgressToken: "p1"}
	res, err := cl.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantOK(t, "sleep", res)
	select {
	case msg := <-got:
		if msg != "slept 1.0s of 2.0s" {
			t.Fatalf("progress message %q", msg)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no progress notification")
	}
}
