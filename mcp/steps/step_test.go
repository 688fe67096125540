package steps

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseYAMLList(t *testing.T) {
	doc := mustParse(t, `# HttpRunner's actions, one per step
- method: home
- method: tap_xy
  params: [0.5, 0.36]
  name: open Notes
  duration: 0.1          # an option next to method, as HttpRunner's MobileAction has them
- method: swipe
  params: up
  options: {press_duration: 0.2, ignore_error: true, identifier: scroll}
- tool: input
  arguments: {text: hello}
  options: {timeout: 5}
`)
	want := []Step{
		{Index: 1, Line: 2, Action: &MobileAction{Method: "home"}},
		{Index: 2, Line: 3, Name: "open Notes", Action: &MobileAction{Method: "tap_xy", Params: []any{0.5, 0.36},
			Options: map[string]any{"duration": 0.1}}},
		{Index: 3, Line: 7, Name: "scroll", IgnoreError: true, Action: &MobileAction{Method: "swipe", Params: "up",
			Options: map[string]any{"press_duration": 0.2}}},
		{Index: 4, Line: 10, Tool: "input", Arguments: map[string]any{"text": "hello", "timeout_ms": 5000.0}},
	}
	if !reflect.DeepEqual(doc.Steps, want) {
		t.Errorf("steps\n got %#v\nwant %#v", doc.Steps, want)
	}
	if doc.Name != "" || doc.Serial != "" {
		t.Errorf("a list has no name or serial: %+v", doc)
	}
}

func TestParseDocumentShapes(t *testing.T) {
	for name, src := range map[string]string{
		"yaml": `
name: smoke
serial: n1-p1
platform: android
steps:
  - {method: home}
  - {method: sleep_ms, params: 100}
`,
		"json": `{
	"name": "smoke", "serial": "n1-p1", "platform": "android",
	"steps": [
		{"method": "home"},
		{"tool": "sleep_ms", "arguments": {"milliseconds": 100}}
	]
}`,
		"yaml flow": `{name: smoke, serial: n1-p1, platform: android, steps: [{method: home}, {method: sleep_ms, params: 100}]}`,
	} {
		doc := mustParse(t, src)
		if doc.Name != "smoke" || doc.Serial != "n1-p1" || doc.Platform != "android" || len(doc.Steps) != 2 {
			t.Errorf("%s: %+v", name, doc)
			continue
		}
		req, err := doc.Steps[1].Request()
		if err != nil || req.Params.Name != "sleep_ms" || !reflect.DeepEqual(req.GetArguments(), map[string]any{"milliseconds": 100.0}) {
			t.Errorf("%s: step 2 is %v %v", name, req.Params, err)
		}
		if name == "json" && (doc.Steps[0].Line != 4 || doc.Steps[1].Line != 5) {
			t.Errorf("JSON's steps are on lines 4 and 5: %+v", doc.Steps)
		}
	}
	// A list in JSON, with tool calls already converted.
	doc := mustParse(t, `[{"tool": "tap_xy", "arguments": {"x": 0.5, "y": 0.5}, "ignore_error": true}, {"method": "back"}]`)
	if len(doc.Steps) != 2 || doc.Steps[0].Tool != "tap_xy" || !doc.Steps[0].IgnoreError || doc.Steps[1].Method() != "back" {
		t.Errorf("JSON list: %+v", doc.Steps)
	}
}

func TestLoadNamesTheRunAfterTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "checkout-flow.yaml")
	if err := os.WriteFile(path, []byte("- method: home\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := Load(path)
	if err != nil || doc.Name != "checkout-flow" {
		t.Fatalf("Load = %+v, %v", doc, err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "nope.yaml")); err == nil || !strings.HasPrefix(err.Error(), "read steps file: ") {
		t.Errorf("a missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("- method: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || err.Error() != bad+": step 1 (line 1): method: must be a non-empty string, got the number 3" {
		t.Errorf("a bad file: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"", "the steps file is empty: write a list of steps, or {name, serial, platform, steps}"},
		{"# nothing but a comment\n", "the steps file is empty: write a list of steps, or {name, serial, platform, steps}"},
		{"hello", `a steps file holds a list of steps, or an object {name, serial, platform, steps}; got the string "hello"`},
		{"[]", "no steps to run: the list of steps is empty"},
		{"name: x\n", "steps is missing: a steps document is a list of steps, or {name, serial, platform, steps}"},
		{"steps: 3\n", "steps must be a list of steps, got the number 3"},
		{"name: [1]\nsteps: []\n", "name must be a string, got the list [1]"},
		{"steps: [{method: home}]\nsteeps: 1\n", `unknown field "steeps": a steps document has name, serial, platform and steps`},
		{"- home\n", `step 1 (line 1): a step is an object {method, params, options} or {tool, arguments}; got the string "home"`},
		{"- method: home\n- params: [1, 2]\n",
			"step 2 (line 2): method is missing: give method (an HttpRunner action, e.g. method: tap_xy) or tool (a tool call with arguments)"},
		{"- {method: tap_xy, tool: tap_xy}\n", "step 1 (line 1): give method (an HttpRunner action) or tool (a tool call), not both"},
		{"- {method: 3}\n", "step 1 (line 1): method: must be a non-empty string, got the number 3"},
		{"- {method: home, name: 7}\n", "step 1 (line 1, home): name: must be a non-empty string, got the number 7"},
		{"- {method: home, parms: 1}\n", `step 1 (line 1, home): unknown field "parms": a step has method, params, options and name ` +
			`(or tool, arguments, options and name); options may also stand next to method: ignore_error, identifier, expect, expect_timeout, duration, ` +
			`press_duration, anti_risk, pre_mark_operation, timeout, timeout_ms, wait_seconds, lease, serial, platform`},
		{"- {method: home, options: [1]}\n",
			"step 1 (line 1, home): options: must be an object, e.g. {duration: 0.5, ignore_error: true}; got the list [1]"},
		{"- {method: home, duration: 1, options: {duration: 2}}\n",
			"step 1 (line 1, home): options.duration: given both next to method and in options; keep one"},
		{"- {method: home, ignore_error: yes}\n", `step 1 (line 1, home): options.ignore_error: must be true or false, got the string "yes"`},
		{"- {method: home, identifier: 3}\n", `step 1 (line 1, home): options.identifier: must be a string, got the number 3`},
		{"- {tool: tap_xy, params: [1, 2]}\n", "step 1 (line 1, tap_xy): params: a tool step takes arguments, not params (params go with method)"},
		{"- {method: tap_xy, arguments: {x: 1}}\n",
			"step 1 (line 1, tap_xy): arguments: an action takes params and options, not arguments (arguments go with tool)"},
		{"- {tool: tap_xy, arguments: [1]}\n", "step 1 (line 1, tap_xy): arguments: must be an object of the tool's arguments, got the list [1]"},
		{"- {tool: tap_xy, arguments: {x: 1}, options: {x: 2}}\n", "step 1 (line 1, tap_xy): options.x: conflicts with x 1 given by arguments; keep one"},
		{`[{"method": "home"}, {"method": ""}]`, `step 2 (line 1): method: must be a non-empty string, got the string ""`},
		{`{"steps": [}`, "the steps file is not valid JSON: line 1: invalid character '}' looking for beginning of value"},
		{"- {method: sleep, params: .nan}\n",
			"the steps file holds a value JSON cannot carry (.nan or .inf?): json: unsupported value: NaN"},
		// Every step at fault is listed, one per line.
		{"- {method: home}\n- 3\n- {tool: 4}\n", "step 2 (line 2): a step is an object {method, params, options} or {tool, arguments}; got the number 3\n" +
			"step 3 (line 3): tool: must be a non-empty string, got the number 4"},
	} {
		doc, err := Parse([]byte(c.src))
		if err == nil { // an option's fault is listed by the checks after (Requests, NewPlan)
			_, err = doc.Requests()
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q)\n got %v\nwant %s", c.src, err, c.want)
		}
	}
	if _, err := Parse([]byte("- [a\n")); err == nil || err.Error() != "the steps file is not valid YAML: line 1: did not find expected ',' or ']'" {
		t.Errorf("bad YAML: %v", err)
	}
}

// Offline, Requests converts every step; step errors name the step, its line and method.
func TestDocumentRequests(t *testing.T) {
	doc := mustParse(t, "- {method: home}\n- {method: tap_xy, params: up}\n- {method: swipe, params: [1, 2]}\n")
	_, err := doc.Requests()
	want := `step 2 (line 2, tap_xy): params: tap_xy takes [x, y] (relative 0-1), or an object of its arguments; got the string "up"` + "\n" +
		`step 3 (line 3, swipe): params: swipe takes a direction ("up", "down", "left" or "right") or [from_x, from_y, to_x, to_y] ` +
		`(relative 0-1), or an object of its arguments; got the list [1,2]`
	if err == nil || err.Error() != want {
		t.Errorf("Requests\n got %v\nwant %s", err, want)
	}
	reqs, err := mustParse(t, "- {method: home}\n- {method: tap_xy, params: [0, 0]}\n").Requests()
	if err != nil || len(reqs) != 2 || reqs[1].Params.Name != "tap_xy" {
		t.Errorf("Requests = %v, %v", reqs, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"- method: home\n- {method: tap_xy, params: [0.5, 0.5], options: {duration: 0.1}}\n",
		`{"name": "x", "steps": [{"tool": "input", "arguments": {"text": "a"}}]}`,
		"steps:\n  - {method: sequence, params: [{method: tap, params: [0, 0, 1, 1]}]}\n",
		"- {method: swipe, params: up, ignore_error: true}\n",
		"- {method: tap_xy, params: [0.5, 0.5], expect: Notes, expect_timeout: 2.5}\n",
		"[{method: sleep, params: '1'}]",
		"- &a {method: home}\n- *a\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error message")
			}
			return
		}
		if len(doc.Steps) == 0 {
			t.Fatal("a document without steps parsed")
		}
		for _, s := range doc.Steps {
			if s.Method() == "" {
				t.Fatalf("step %d has no method", s.Index)
			}
			_, _ = s.Request() // must not panic
		}
	})
}
