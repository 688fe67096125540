package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// The tools of the Android issue, called well, send their own tool name and the arguments the
// node expects, and their structured results match their output schemas and carry a hint.
func TestNewToolsSendTheirTask(t *testing.T) {
	apk := filepath.Join(t.TempDir(), "com.example.app.apk")
	if err := os.WriteFile(apk, []byte("PK"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		tool     string
		args     map[string]any
		wantArgs string
		wantData map[string]any
	}{
		// HttpRunner.
		{"swipe_direction", map[string]any{"direction": "Left", "duration": 0.2}, `{"direction":"left","duration":0.2}`, map[string]any{"direction": "left"}},
		{"swipe_coordinate", map[string]any{"from_x": 0, "from_y": 1, "to_x": 1, "to_y": 0}, `{"from_x":0,"from_y":1,"to_x":1,"to_y":0}`,
			map[string]any{"fromX": 0.0, "fromY": 1.0, "toX": 1.0, "toY": 0.0}},
		{"app_install", map[string]any{"appUrl": apk}, `{"appUrl":"` + apk + `"}`, map[string]any{"appUrl": apk, "bytes": 2.0, "downloaded": false}},
		{"app_uninstall", map[string]any{"packageName": "com.example.app"}, `{"packageName":"com.example.app"}`, map[string]any{"packageName": "com.example.app"}},
		{"app_clear", map[string]any{"packageName": "com.corral.notes"}, `{"packageName":"com.corral.notes"}`, map[string]any{"packageName": "com.corral.notes"}},
		{"set_ime", map[string]any{"ime": "com.android.adbkeyboard/.AdbIME"}, `{"ime":"com.android.adbkeyboard/.AdbIME"}`, map[string]any{"ime": "com.android.adbkeyboard/.AdbIME"}},
		{"sleep_random", map[string]any{"params": []any{0.001, 0.002}}, `{"params":[0.001,0.002]}`, nil},
		// PhysiClaw.
		{"tap", map[string]any{"bbox": []any{0.4, 0.4, 0.6, 0.6}}, `{"bbox":[0.4,0.4,0.6,0.6]}`, map[string]any{"x": 540.0, "y": 1200.0}},
		{"double_tap", map[string]any{"bbox": []any{0, 0, 1, 1}}, `{"bbox":[0,0,1,1]}`, map[string]any{"x": 540.0}},
		{"long_press", map[string]any{"bbox": []any{0, 0, 0.2, 0.1}}, `{"bbox":[0,0,0.2,0.1]}`, map[string]any{"x": 108.0, "y": 120.0}},
		{"swipe", map[string]any{"bbox": []any{0.4, 0.4, 0.6, 0.6}, "direction": "up", "size": "XL", "speed": "fast"},
			`{"direction":"up","bbox":[0.4,0.4,0.6,0.6],"size":"xl","speed":"fast"}`,
			map[string]any{"size": "xl", "speed": "fast", "dpi": 420.0, "durationMs": 150.0, "direction": "up"}},
		{"home_screen", nil, `{}`, map[string]any{"message": "pressed HOME"}},
		{"go_back", map[string]any{}, `{}`, map[string]any{"message": "pressed BACK"}},
		{"force_quit", nil, `{}`, map[string]any{"packageName": "com.corral.notes", "quit": true}},
		{"send_to_clipboard", map[string]any{"text": "héllo"}, `{"text":"héllo"}`, map[string]any{"characters": 5.0}},
		{"peek", nil, `{}`, map[string]any{"listing": "", "width": 9.0, "height": 16.0}},
		{"sequence", map[string]any{"steps": []any{
			map[string]any{"tool_name": "tap", "arg": []any{0, 0, 1, 1}},
			map[string]any{"tool_name": "home_screen"},
			map[string]any{"tool_name": "swipe", "args": map[string]any{"bbox": []any{0, 0, 1, 1}, "direction": "DOWN"}},
		}}, `{"steps":[{"tool_name":"tap","args":{"bbox":[0,0,1,1]}},{"tool_name":"home_screen","args":{}},` +
			`{"tool_name":"swipe","args":{"direction":"down","bbox":[0,0,1,1]}}]}`, map[string]any{"message": "ran all 3 steps"}},
		{"sequence", map[string]any{"step1": map[string]any{"tool_name": "send_to_clipboard", "arg": "x"}, "step2": map[string]any{"tool_name": "go_back"}},
			`{"steps":[{"tool_name":"send_to_clipboard","args":{"text":"x"}},{"tool_name":"go_back","args":{}}]}`, nil},
	} {
		t.Run(c.tool, func(t *testing.T) {
			farm := newFakeFarm(t)
			cl := newTestClient(t, farm)
			args := map[string]any{"serial": phone}
			for k, v := range c.args {
				args[k] = v
			}
			res := call(t, cl, c.tool, args)
			data := wantOK(t, c.tool, res)
			runs := farm.Runs()
			if len(runs) != 1 || runs[0].Tool != c.tool {
				t.Fatalf("farm got %+v, want one %s task", runs, c.tool)
			}
			if string(runs[0].Args) != c.wantArgs {
				t.Errorf("args %s, want %s", runs[0].Args, c.wantArgs)
			}
			for k, v := range c.wantData {
				if data[k] != v {
					t.Errorf("result %s = %#v, want %#v (%v)", k, data[k], v, data)
				}
			}
			if _, ok := data["message"]; !ok {
				t.Errorf("result has no message: %v", data)
			}
			if h, _ := data["hint"].(string); h == "" && c.tool != "sleep_random" {
				t.Errorf("an action's result carries no hint: %v", data)
			}
			if c.tool == "peek" {
				if len(res.Content) != 2 {
					t.Fatalf("peek content %v", res.Content)
				}
				if img, ok := mcpgo.AsImageContent(res.Content[0]); !ok || img.MIMEType != "image/jpeg" || img.Data == "" {
					t.Errorf("peek's first content is not a JPEG image: %#v", res.Content[0])
				}
			}
		})
	}
}

// Wrong arguments of the new tools come back as isError with a helpful message and never reach
// the farm.
func TestNewToolsRefuseBadArguments(t *testing.T) {
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"tap", map[string]any{}, []string{"bbox is required", "peek"}},
		{"tap", map[string]any{"bbox": []any{0.5, 0.5, 0.4, 0.6}}, []string{"left < right"}},
		{"tap", map[string]any{"bbox": []any{0, 0, 1}}, []string{"4 numbers"}},
		{"tap", map[string]any{"bbox": "0,0,1,1"}, []string{"bbox must be an array of numbers, got a string"}},
		{"long_press", map[string]any{"bbox": []any{0, 0, 1, 1}, "duration": 3}, []string{`unknown argument "duration"`, "long_press takes:", "bbox"}},
		{"double_tap", map[string]any{"bbox": []any{0, 0, 1, 1.2}}, []string{"bbox[3] must be between 0 and 1"}},
		{"swipe", map[string]any{"bbox": []any{0, 0, 1, 1}}, []string{"needs direction"}},
		{"swipe", map[string]any{"bbox": []any{0, 0, 1, 1}, "direction": "up", "to_x": 1}, []string{"exactly one mode"}},
		{"swipe", map[string]any{"direction": "up", "speed": "fast"}, []string{"bbox mode"}},
		{"swipe", map[string]any{"bbox": []any{0, 0, 1, 1}, "direction": "up", "size": "xxxl"}, []string{"size must be s, m, l, xl or xxl"}},
		{"swipe_direction", map[string]any{}, []string{"direction is required"}},
		{"swipe_direction", map[string]any{"direction": "up", "to_x": 1}, []string{`unknown argument "to_x"`}},
		{"swipe_coordinate", map[string]any{"from_x": 0}, []string{"from_y, to_x and to_y are required"}},
		{"app_install", map[string]any{}, []string{"appUrl is required"}},
		{"app_install", map[string]any{"appUrl": "ftp://x/a.apk"}, []string{"not supported"}},
		{"app_install", map[string]any{"appUrl": "a.apk"}, []string{"absolute path"}},
		{"app_uninstall", map[string]any{"packageName": "a b"}, []string{"packageName"}},
		{"app_clear", map[string]any{}, []string{"packageName is required"}},
		{"set_ime", map[string]any{"ime": "x; reboot"}, []string{"input method ids are"}},
		{"sleep_random", map[string]any{"params": []any{2, 1}}, []string{"min <= max"}},
		{"sleep_random", map[string]any{"params": []any{1, 2, 3, 4}}, []string{"4 numbers"}},
		{"sleep_random", map[string]any{}, []string{"params is required"}},
		{"send_to_clipboard", map[string]any{"text": ""}, []string{"text is required"}},
		{"force_quit", map[string]any{"packageName": "com.x"}, []string{`unknown argument "packageName"`}},
		{"peek", map[string]any{"bbox": []any{0, 0, 1, 1}}, []string{`unknown argument "bbox"`}},
		{"sequence", map[string]any{}, []string{"steps is required", "step tools:"}},
		{"sequence", map[string]any{"steps": []any{map[string]any{"tool_name": "home"}, map[string]any{"tool_name": "tap", "arg": []any{1, 0, 0, 1}}}},
			[]string{"step 2: tap: bbox must have left < right"}},
		{"sequence", map[string]any{"steps": []any{map[string]any{"tool_name": "force_quit"}}}, []string{"cannot run in a sequence"}},
		{"sequence", map[string]any{"steps": []any{map[string]any{"tool_name": "tap_xy", "args": map[string]any{"x": "1", "y": 0}}}},
			[]string{"step 1: tap_xy: x must be a number, got a string"}},
		{"sequence", map[string]any{"steps": []any{map[string]any{"tool_name": "tap_xy", "args": map[string]any{"x": 1, "y": 0, "serial": "x"}}}},
			[]string{`step 1: tap_xy: unknown argument "serial"`}},
		{"sequence", map[string]any{"steps": []any{1, 2, 3, 4, 5, 6}}, []string{"each item of steps must be an object {tool_name, args, arg}, got a number"}},
		{"sequence", map[string]any{"steps": []any{nil}}, []string{"step 1: tool_name is required"}},
		{"sequence", map[string]any{"step2": map[string]any{"tool_name": "home"}}, []string{"step2 is given but step1 is not"}},
	} {
		farm := newFakeFarm(t)
		cl := newTestClient(t, farm)
		args := map[string]any{"serial": phone}
		for k, v := range c.args {
			args[k] = v
		}
		res := call(t, cl, c.tool, args)
		wantError(t, res, c.want...)
		if n := len(farm.Runs()); n != 0 {
			t.Errorf("%s %v reached farm.Run", c.tool, c.args)
		}
	}
}

// A sequence is one task: the farm receives one request, whose progress reaches the client.
func TestSequenceIsOneTaskWithProgress(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	got := make(chan string, 8)
	cl.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			msg, _ := n.Params.AdditionalFields["message"].(string)
			got <- msg
		}
	})
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "sequence"
	req.Params.Arguments = map[string]any{"serial": phone, "steps": []any{
		map[string]any{"tool_name": "tap", "arg": []any{0, 0, 1, 1}}, map[string]any{"tool_name": "go_back"}}}
	req.Params.Meta = &mcpgo.Meta{ProgressToken: "p"}
	res, err := cl.CallTool(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	data := wantOK(t, "sequence", res)
	if runs := farm.Runs(); len(runs) != 1 || !runs[0].Progress {
		t.Fatalf("farm runs %+v: want one task that asks for progress", runs)
	}
	steps, _ := data["steps"].([]any)
	if len(steps) != 2 {
		t.Fatalf("per-step results %v", data)
	}
	for _, want := range []string{"step 1 of 2 (tap) done", "step 2 of 2 (go_back) done"} {
		select {
		case msg := <-got:
			if msg != want {
				t.Fatalf("progress %q, want %q", msg, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no progress %q", want)
		}
	}
}

// A failed step comes back as isError that says where the sequence stopped.
func TestSequenceFailureIsRendered(t *testing.T) {
	farm := newFakeFarm(t)
	farm.RunFn = func(_ context.Context, req broker.TaskRequest, _ func(broker.Progress)) (broker.TaskResult, error) {
		return broker.TaskResult{ID: req.ID, Serial: req.Serial, Tool: req.Tool, Outcome: broker.OutcomeFailed, Code: broker.CodeDriver,
			Error: "sequence stopped at step 2 of 3 (tap): device offline. Step 1 ran and is not undone: [1 home_screen: pressed HOME]"}, nil
	}
	cl := newTestClient(t, farm)
	res := call(t, cl, "sequence", map[string]any{"serial": phone, "steps": []any{
		map[string]any{"tool_name": "home_screen"}, map[string]any{"tool_name": "tap", "arg": []any{0, 0, 1, 1}}, map[string]any{"tool_name": "go_back"}}})
	wantError(t, res, "sequence on emulator-5554 failed", "stopped at step 2 of 3", "not undone")
}

// app_install and sleep_random report progress; without a progress token it arrives as
// logging messages.
func TestLongNewToolsReportProgress(t *testing.T) {
	for _, tool := range []string{"app_install", "sleep_random", "sequence"} {
		if spec, _ := tools.Lookup(tool); !spec.Progress {
			t.Errorf("%s does not report progress", tool)
		}
	}
}

func TestNewToolAnnotations(t *testing.T) {
	want := map[string][3]bool{ // readOnly, destructive, idempotent
		"peek":              {true, false, true},
		"sleep_random":      {true, false, true},
		"tap":               {false, false, false},
		"double_tap":        {false, false, false},
		"long_press":        {false, false, false},
		"home_screen":       {false, false, true},
		"go_back":           {false, false, false},
		"force_quit":        {false, true, false},
		"send_to_clipboard": {false, false, true},
		"sequence":          {false, false, false},
		"app_install":       {false, false, true},
		"app_uninstall":     {false, true, true},
		"app_clear":         {false, true, true},
		"set_ime":           {false, false, true},
		"swipe_direction":   {false, false, false},
		"swipe_coordinate":  {false, false, false},
	}
	seen := 0
	for _, d := range catalog() {
		w, ok := want[d.tool.Name]
		if !ok {
			continue
		}
		seen++
		a := d.tool.Annotations
		ro := hint(a.ReadOnlyHint, false)
		// A read-only tool is idempotent; the spec reads idempotentHint only for the others.
		if got := [3]bool{ro, hint(a.DestructiveHint, true), ro || hint(a.IdempotentHint, false)}; got != w {
			t.Errorf("%s: readOnly/destructive/idempotent %v, want %v", d.tool.Name, got, w)
		}
	}
	if seen != len(want) {
		t.Fatalf("found %d of the %d new tools", seen, len(want))
	}
	for _, d := range catalog() {
		if open := *d.tool.Annotations.OpenWorldHint; open != slices.Contains(openWorld, d.tool.Name) {
			t.Errorf("%s: openWorldHint %v (only %v reach beyond the farm)", d.tool.Name, open, openWorld)
		}
	}
}

// The sequence tool's schema names the step tools the node accepts.
func TestSequenceSchemaListsStepTools(t *testing.T) {
	for _, d := range catalog() {
		if d.tool.Name != "sequence" {
			continue
		}
		b, err := json.Marshal(d.tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"tool_name"`, `"tap"`, `"swipe"`, `"send_to_clipboard"`, `"maxItems":5`, `"step5"`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("sequence schema lacks %s: %s", want, b)
			}
		}
		return
	}
	t.Fatal("no sequence tool")
}
