package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// recordingFarm is a fake farm whose tasks leave a record, as a node's do.
func recordingFarm(t *testing.T) *fakeFarm {
	farm := newFakeFarm(t)
	farm.TaskRecordFn = func(_ context.Context, id string) (broker.TaskResult, error) {
		for _, r := range farm.Runs() {
			if r.ID == id {
				return broker.TaskResult{V: 1, ID: id, Serial: r.Serial, Node: "n1", Tool: r.Tool, Holder: r.Holder,
					Outcome: broker.OutcomeSucceeded, Data: json.RawMessage(`{"message":"ran","steps":[{"index":1}]}`)}, nil
			}
		}
		return broker.TaskResult{}, fmt.Errorf("task %s: not found", id)
	}
	return farm
}

// get_latest_task {"anyTool": true} returns this session's latest task of any tool, not another
// session's; includeSteps false leaves a sequence's steps out. (Without anyTool it is the latest
// agent task: TestGetLatestTaskIsTheLatestAgentTask.)
func TestGetLatestTask(t *testing.T) {
	farm := recordingFarm(t)
	cl := newTestClient(t, farm)
	anyTool := map[string]any{"anyTool": true}
	wantNoTask(t, call(t, cl, "get_latest_task", anyTool), "No task yet")
	wantOK(t, "tap_xy", call(t, cl, "tap_xy", map[string]any{"serial": phone, "x": 0.5, "y": 0.5}))
	wantOK(t, "home", call(t, cl, "home", map[string]any{"serial": phone}))
	second := farm.Runs()[1].ID
	wantNoTask(t, call(t, cl, "get_latest_task", map[string]any{}), "No agent task yet")
	out := wantOK(t, "get_latest_task", call(t, cl, "get_latest_task", anyTool))
	if out["taskId"] != second || out["tool"] != "home" || out["status"] != "succeeded" {
		t.Fatalf("latest %v, want task %s (home)", out, second)
	}
	if steps := out["data"].(map[string]any)["steps"]; steps == nil {
		t.Fatalf("steps left out by default: %v", out["data"])
	}
	out = wantOK(t, "get_latest_task", call(t, cl, "get_latest_task", map[string]any{"includeSteps": false, "anyTool": true}))
	if data := out["data"].(map[string]any); data["steps"] != nil || data["message"] != "ran" {
		t.Fatalf("includeSteps false: %v", data)
	}
	wantError(t, call(t, cl, "get_latest_task", map[string]any{"includeSteps": "no"}), "includeSteps must be a boolean")
	wantError(t, call(t, cl, "get_latest_task", map[string]any{"anyTool": 1}), "anyTool must be a boolean")
	wantError(t, call(t, cl, "get_latest_task", map[string]any{"taskId": "t_x"}), `unknown argument "taskId"`)

	other := newTestClient(t, farm)
	wantNoTask(t, call(t, other, "get_latest_task", anyTool), "No task yet")

	// A task refused before any node saw it has no record: the latest stays the last real one.
	farm.RunFn = func(context.Context, broker.TaskRequest, func(broker.Progress)) (broker.TaskResult, error) {
		return broker.TaskResult{Outcome: broker.OutcomeRefused, Code: broker.CodeOffline, Error: "offline"}, nil
	}
	call(t, cl, "home", map[string]any{"serial": phone})
	if out := wantOK(t, "get_latest_task", call(t, cl, "get_latest_task", anyTool)); out["taskId"] != second {
		t.Fatalf("latest after a refusal: %v", out["taskId"])
	}
}

// wantNoTask checks get_latest_task's answer when there is no task to show: not an error, its
// text first, status none.
func wantNoTask(t *testing.T, res *mcpgo.CallToolResult, prefix string) {
	t.Helper()
	out := wantOK(t, "get_latest_task", res)
	text, _ := mcpgo.AsTextContent(res.Content[0])
	if out["status"] != "none" || out["taskId"] != "" || !strings.HasPrefix(text.Text, prefix) || out["message"] != text.Text {
		t.Fatalf("no task: %v, text %q, want it to begin %q", out, text.Text, prefix)
	}
}

// Without a protocol session, the latest task is the holder's.
func TestLatestOfWithoutSession(t *testing.T) {
	if got := latestOf(context.Background()); got != "holder:"+holderFrom(context.Background()).String() {
		t.Fatalf("latestOf = %q", got)
	}
}
