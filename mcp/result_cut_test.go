package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// answering makes a farm's node answer every task with data (as JSON) and text, and keep that
// as the record of every task get_task_result asks for.
func answering(farm *fakeFarm, tool string, data any, text string) {
	b, err := json.Marshal(data)
	if err != nil {
		farm.t.Fatal(err)
	}
	record := func(id, serial string) broker.TaskResult {
		return broker.TaskResult{V: 1, ID: id, Serial: serial, Node: "n1", Tool: tool, Outcome: broker.OutcomeSucceeded,
			Data: b, Text: text, Submitted: time.Now()}
	}
	farm.RunFn = func(_ context.Context, req broker.TaskRequest, _ func(broker.Progress)) (broker.TaskResult, error) {
		return record(req.ID, req.Serial), nil
	}
	farm.TaskRecordFn = func(_ context.Context, id string) (broker.TaskResult, error) { return record(id, "emulator-5554"), nil }
}

// taskRecordID is a well-formed task id for get_task_result.
const taskRecordID = "t_0123456789abcdefghij"

// wantCut checks that res fits the cap, still matches its tool's output schema with its text
// mirror, and ends with a note naming each of notes; it returns the structured content.
func wantCut(t *testing.T, tool string, res *mcpgo.CallToolResult, notes ...string) map[string]any {
	t.Helper()
	if n := resultSize(res); n > MaxResultBytes {
		t.Fatalf("%s: result of %d bytes, over the cap of %d", tool, n, MaxResultBytes)
	}
	m := wantOK(t, tool, res)
	b, _ := json.Marshal(m)
	mirrored := false
	for _, c := range res.Content {
		if tc, ok := mcpgo.AsTextContent(c); ok {
			var v any
			mirrored = mirrored || (json.Unmarshal([]byte(tc.Text), &v) == nil && fmt.Sprint(v) == fmt.Sprint(m))
		}
	}
	if !mirrored {
		t.Errorf("%s: the cut structured content %.200s… is not mirrored as text", tool, b)
	}
	last, _ := mcpgo.AsTextContent(res.Content[len(res.Content)-1])
	for _, want := range append([]string{"This result was cut", "32 KB"}, notes...) {
		if last == nil || !strings.Contains(last.Text, want) {
			t.Errorf("%s: the last text does not say %q: %v", tool, want, last)
		}
	}
	return m
}

// The record of a task whose UI source is far over the cap is cut at its end, its text too,
// and the note says what was cut. The device tool itself answered it whole: the screen, not
// the farm, sizes a device tool's result.
func TestCapCutsALongString(t *testing.T) {
	farm := newFakeFarm(t)
	src := "<hierarchy>" + strings.Repeat(`<node text="Item & more" bounds="[0,0][1080,120]"/>`, 12_000) + "</hierarchy>"
	answering(farm, "get_source", map[string]any{"message": "UI source", "packageName": "", "source": src}, "a report beside: "+strings.Repeat("é", 20_000))
	c := newTestClient(t, farm)
	if res := call(t, c, "get_source", map[string]any{"serial": "emulator-5554"}); resultSize(res) < len(src) || strings.Contains(resultText(res), "This result was cut") {
		t.Fatalf("get_source's %d-byte source was cut to %d bytes: device tools keep their nodes' bounds", len(src), resultSize(res))
	}
	res := call(t, c, "get_task_result", map[string]any{"task_id": taskRecordID})
	m := wantCut(t, "get_task_result", res, "get_task_result answered", "data.source from 612023 to", "text from 40017 to")
	got := m["data"].(map[string]any)["source"].(string)
	if !strings.HasPrefix(src, strings.TrimSuffix(got, "…")) || len(got) < 4000 {
		t.Errorf("the cut source is not the start of the source, or is too short to help: %d bytes", len(got))
	}
	if m["data"].(map[string]any)["message"] != "UI source" || m["taskId"] != taskRecordID {
		t.Errorf("short fields are kept: %v, %v", m["data"].(map[string]any)["message"], m["taskId"])
	}
}

// A list far over the cap keeps its first items.
func TestCapCutsALongList(t *testing.T) {
	farm := newFakeFarm(t)
	pkgs := make([]string, 20_000)
	for i := range pkgs {
		pkgs[i] = fmt.Sprintf("com.example.app%05d", i)
	}
	answering(farm, "list_packages", map[string]any{"packages": pkgs}, "")
	c := newTestClient(t, farm)
	m := wantCut(t, "get_task_result", call(t, c, "get_task_result", map[string]any{"task_id": taskRecordID}), "data.packages from 20000 to")
	got := m["data"].(map[string]any)["packages"].([]any)
	if len(got) < 300 || got[0] != pkgs[0] || got[len(got)-1] != pkgs[len(got)-1] {
		t.Errorf("kept %d packages, from %v to %v; want the first ones, hundreds of them", len(got), got[0], got[len(got)-1])
	}
}

// Results under the cap pass untouched.
func TestCapLeavesSmallResults(t *testing.T) {
	c := newTestClient(t, newFakeFarm(t))
	res := call(t, c, "get_screen_size", map[string]any{"serial": "emulator-5554"})
	wantOK(t, "get_screen_size", res)
	if strings.Contains(resultText(res), "cut") || len(res.Content) != 1 {
		t.Fatalf("a small result was changed: %s", resultText(res))
	}
}

// A text-only result (an error) is cut at its end.
func TestCutResultText(t *testing.T) {
	res := errorResult("tap_xy failed: " + strings.Repeat("the driver said ", 10_000))
	got := cutResult("tap_xy", res, resultSize(res))
	if !got.IsError || resultSize(got) > MaxResultBytes || !strings.HasPrefix(resultText(got), "tap_xy failed: the driver said") ||
		!strings.Contains(resultText(got), "This result was cut: tap_xy answered 156 KB") {
		t.Fatalf("cut error result: isError %v, %d bytes: %.300s", got.IsError, resultSize(got), resultText(got))
	}
}

// Structured content that no cut of arrays or strings can fit becomes an error that says so.
func TestCutResultThatCannotFit(t *testing.T) {
	wide := map[string]int{}
	for i := range 10_000 {
		wide[fmt.Sprintf("k%d", i)] = i
	}
	b, _ := json.Marshal(wide)
	res := mcpgo.NewToolResultStructured(json.RawMessage(b), string(b))
	got := cutResult("some_tool", res, resultSize(res))
	if !got.IsError || got.StructuredContent != nil || !strings.Contains(resultText(got), "cannot be cut to fit") {
		t.Fatalf("an uncuttable result: isError %v: %.300s", got.IsError, resultText(got))
	}
}
