package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
)

func testRegistry() *prometheus.Registry { return prometheus.NewRegistry() }

func TestGetDeviceStatus(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	out := wantOK(t, "get_device_status", call(t, cl, "get_device_status", map[string]any{"serial": phone}))
	want := map[string]any{"connected": true, "serial": phone, "platform": "android", "model": "Pixel 7", "brand": "google",
		"release": "14", "sdk": "34", "node": "n1", "state": "online"}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("%s = %v, want %v", k, out[k], v)
		}
	}
	gone := wantOK(t, "get_device_status", call(t, cl, "get_device_status", map[string]any{"serial": "android-gone", "platform": "Android"}))
	if gone["connected"] != false || gone["reason"] != "unplugged" {
		t.Errorf("offline device: %v", gone)
	}
	busy := wantOK(t, "get_device_status", call(t, cl, "get_device_status", map[string]any{"serial": "android-busy"}))
	if busy["holder"] != "alice (claude)" || busy["state"] != "leased" {
		t.Errorf("leased device: %v", busy)
	}
	wantError(t, call(t, cl, "get_device_status", map[string]any{"serial": "nope"}), "unknown device", "list_available_devices")
	wantError(t, call(t, cl, "get_device_status", nil), "serial is required")
	wantError(t, call(t, cl, "get_device_status", map[string]any{"serial": phone, "verbose": true}), `unknown argument "verbose"`)
}

func TestAbortTask(t *testing.T) {
	farm := newFakeFarm(t)
	farm.AbortFn = func(_ context.Context, req broker.AbortRequest) (broker.AbortAnswer, error) {
		if req.Serial == phone {
			return broker.AbortAnswer{V: 1, Aborted: []string{"t_run", "t_queued"}}, nil
		}
		return broker.AbortAnswer{V: 1}, nil
	}
	cl := newTestClient(t, farm)
	out := wantOK(t, "abort_task", call(t, cl, "abort_task", map[string]any{"serial": phone, "all": true}))
	if got := out["aborted"].([]any); len(got) != 2 || got[0] != "t_run" {
		t.Errorf("aborted %v", got)
	}
	a := farm.aborts[0]
	if a.V != broker.WireVersion || a.Serial != phone || !a.All || a.By == "" {
		t.Errorf("abort request %+v", a)
	}

	none := wantOK(t, "abort_task", call(t, cl, "abort_task", map[string]any{"taskId": "t_abc"}))
	if none["message"] != "No task is currently running on task t_abc." || len(none["aborted"].([]any)) != 0 {
		t.Errorf("nothing running: %v", none)
	}
	if farm.aborts[1].TaskID != "t_abc" {
		t.Errorf("taskId alias not passed on: %+v", farm.aborts[1])
	}
	farm.LeasesFn = func(context.Context) ([]broker.Lease, error) { // a lease handle reaches the nodes only if a node holds it
		return []broker.Lease{{Serial: phone, HandleSHA256: broker.HandleHash("lease_abc")}, {Serial: phone, HandleSHA256: broker.HandleHash("lease_x")}}, nil
	}
	wantOK(t, "abort_task", call(t, cl, "abort_task", map[string]any{"lease": "lease_abc"}))
	if farm.aborts[2].Lease != "lease_abc" {
		t.Errorf("abort by lease: %+v", farm.aborts[2])
	}

	n := len(farm.aborts)
	for _, a := range []map[string]any{{}, {"all": true}} { // the caller runs no agent task, and has no session device
		if out := wantOK(t, "abort_task", call(t, cl, "abort_task", a)); out["message"] != "No task is currently running." {
			t.Errorf("abort_task %v: %v", a, out)
		}
	}
	wantError(t, call(t, cl, "abort_task", map[string]any{"task_id": "t_a", "taskId": "t_b"}), "different tasks")
	wantError(t, call(t, cl, "abort_task", map[string]any{"task_id": "corral.v1.>"}), "task_id")
	wantError(t, call(t, cl, "abort_task", map[string]any{"serial": "nope"}), "unknown device")
	if len(farm.aborts) != n {
		t.Error("bad abort reached the farm")
	}

	farm.AbortFn = func(context.Context, broker.AbortRequest) (broker.AbortAnswer, error) {
		return broker.AbortAnswer{Code: broker.CodeStaleLease, Error: "lease unknown"}, nil
	}
	wantError(t, call(t, cl, "abort_task", map[string]any{"lease": "lease_x"}), "stale_lease", "lease unknown")
	farm.AbortFn = func(context.Context, broker.AbortRequest) (broker.AbortAnswer, error) {
		return broker.AbortAnswer{}, errors.New("node n1 lost")
	}
	wantError(t, call(t, cl, "abort_task", map[string]any{"serial": phone}), "node n1 lost")
}

// In a session, abort_task without a selector aborts on the selected device.
func TestAbortTaskUsesSessionDevice(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	wantOK(t, "select_device", call(t, cl, "select_device", map[string]any{"serial": phone}))
	out := wantOK(t, "abort_task", call(t, cl, "abort_task", nil))
	if farm.aborts[0].Serial != phone || out["message"] != "No task is currently running on device emulator-5554." {
		t.Errorf("abort %+v: %v", farm.aborts[0], out)
	}
}

func TestGetTaskResult(t *testing.T) {
	started := time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC)
	rec := broker.TaskResult{V: 1, ID: "t_abc", Serial: phone, Node: "n1", Tool: "tap_xy",
		Holder: broker.Holder{Principal: "alice", Client: "claude"}, Outcome: broker.OutcomeSucceeded,
		Data: json.RawMessage(`{"message":"tapped"}`), Submitted: started.Add(-time.Second), Started: started,
		Finished: started.Add(1500 * time.Millisecond)}
	farm := newFakeFarm(t)
	farm.TaskRecordFn = func(_ context.Context, id string) (broker.TaskResult, error) {
		switch id {
		case "t_abc":
			return rec, nil
		case "t_refused":
			return broker.TaskResult{ID: id, Serial: phone, Tool: "home", Outcome: broker.OutcomeRefused, Code: broker.CodeBusy,
				Error: "leased by bob", Finished: started}, nil
		}
		return broker.TaskResult{}, errors.New("not found")
	}
	cl := newTestClient(t, farm)
	out := wantOK(t, "get_task_result", call(t, cl, "get_task_result", map[string]any{"task_id": "t_abc"}))
	want := map[string]any{"taskId": "t_abc", "serial": phone, "tool": "tap_xy", "status": "succeeded", "outcome": "succeeded",
		"durationMs": 1500.0, "holder": "alice (claude)", "started": "2030-01-01T10:00:00Z", "finished": "2030-01-01T10:00:01.5Z"}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("%s = %v, want %v", k, out[k], v)
		}
	}
	if data, _ := out["data"].(map[string]any); data["message"] != "tapped" {
		t.Errorf("data %v", out["data"])
	}

	refused := wantOK(t, "get_task_result", call(t, cl, "get_task_result", map[string]any{"taskId": "t_refused"}))
	if refused["status"] != "refused" || refused["code"] != "busy" || refused["error"] != "leased by bob" || refused["durationMs"] != 0.0 {
		t.Errorf("refused record: %v", refused)
	}
	if _, ok := refused["started"]; ok {
		t.Errorf("a task that never ran has a start: %v", refused)
	}

	wantError(t, call(t, cl, "get_task_result", map[string]any{"task_id": "t_zzz"}), "no record of task t_zzz", "not found")
	wantError(t, call(t, cl, "get_task_result", nil), "task_id is required")
	wantError(t, call(t, cl, "get_task_result", map[string]any{"task_id": "*"}), "task_id")
	wantError(t, call(t, cl, "get_task_result", map[string]any{"task_id": 5}), "task_id")
}
