package steps

import (
	"fmt"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/typo"
)

// Arguments that do not fit a tool are explained in its terms, before anything runs.
func TestCatalogCheck(t *testing.T) {
	_, _, cat := startFarm(t)
	type m = map[string]any
	for _, c := range []struct {
		tool string
		args m
		want string // the whole message, or its start when it ends in "…"
	}{
		{"tap_yx", m{}, fmt.Sprintf(`the gateway has no tool "tap_yx" (did you mean "tap_xy"?); docs/scripted-runs.md lists the methods, `+
			`tools/list the gateway's %d tools`, len(cat.Names()))},
		{"frobnicate", m{}, `the gateway has no tool "frobnicate"; docs/scripted-runs.md lists …`},
		// another case is the name meant (it had no hint), and a long name is quoted cut short (it was whole)
		{"TAP_XY", m{}, `the gateway has no tool "TAP_XY" (did you mean "tap_xy"?); docs/scripted-runs.md lists …`},
		{strings.Repeat("x", 5000), m{}, `the gateway has no tool "` + strings.Repeat("x", 64) + `…"; docs/scripted-runs.md lists …`},
		{"home", m{"durration": 1}, `unknown argument "durration"; home takes: …`},
		{"tap_xy", m{"x": 2, "y": 0.5}, "x must be between 0 and 1, got 2"},
		{"tap_xy", m{"x": 0.5}, "y is required: tap_xy takes x, y […"},
		{"tap_xy", m{"x": "left", "y": 0.5}, `x must be a number, got the string "left"`},
		{"swipe", m{"direction": "sideways"}, `direction must be one of up, down, left, right; got "sideways"`},
		{"tap", m{"bbox": []any{0.1, 0.2}}, "bbox must have 4 items, got 2"},
		{"tap", m{"bbox": []any{0.1, 0.2, 0.3, "a"}}, `bbox[3] must be a number, got the string "a"`},
		{"tap", m{"bbox": []any{0.1, 0.2, 0.3, 1.5}}, `bbox[3] must be between 0 and 1, got 1.5`},
		{"sleep_ms", m{"milliseconds": 1.5}, "milliseconds must be a whole number, got the number 1.5"},
		{"app_launch", m{"packageName": "com bad"}, `packageName "com bad" does not match ^([A-Za-z0-9._-]{1,255}|https?://[^\s]+)$`},
		{"input", m{"text": 5}, "text must be a string, got the number 5"},
		{"input", m{"text": ""}, "text must not be empty"},
		{"tap_xy", m{"x": 0.5, "y": 0.5, "serial": 7}, "serial must be a string, got the number 7"},
		{"sequence", m{"steps": []any{m{"tool_name": "nope"}}}, "steps[0].tool_name must be one of …"},
	} {
		err := cat.Check(c.tool, c.args)
		got := fmt.Sprint(err)
		ok := err != nil && got == c.want
		if prefix, cut := strings.CutSuffix(c.want, "…"); cut {
			ok = err != nil && strings.HasPrefix(got, prefix)
		}
		if !ok {
			t.Errorf("Check(%s, %v)\n got %v\nwant %s", typo.Shown(c.tool), c.args, err, c.want)
		}
	}
	if err := cat.Check("tap_xy", m{"x": 0, "y": 0, "serial": "n1-p1", "lease": "l_1", "timeout_ms": 1000}); err != nil {
		t.Errorf("a good call: %v", err)
	}
	if !cat.Takes("tap_xy", "serial") || cat.Takes("list_leases", "serial") || cat.Takes("nope", "x") {
		t.Error("Takes is wrong")
	}
	if !cat.needsDevice("tap_xy") || cat.needsDevice("acquire_device") || cat.needsDevice("list_available_devices") {
		t.Error("needsDevice is wrong")
	}
}

// A schema keyword checkValue does not explain still fails the check, in the validator's words.
func TestCatalogFallsBackToTheValidator(t *testing.T) {
	tool := mcpgo.NewTool("odd", mcpgo.WithString("code", mcpgo.Required()))
	tool.InputSchema.Properties["code"] = map[string]any{"type": "string", "not": map[string]any{"const": "x"}}
	cat, err := NewCatalog([]mcpgo.Tool{tool})
	if err != nil {
		t.Fatal(err)
	}
	err = cat.Check("odd", map[string]any{"code": "x"})
	if err == nil || !strings.HasPrefix(err.Error(), "code: not: ") {
		t.Errorf("Check = %v, want the validator's message about code", err)
	}
}

func TestCleanSchemaError(t *testing.T) {
	for in, want := range map[string]string{
		`validating root: validating /properties/x: maximum: 2/1 is greater than 1.000000`:                                    "x: maximum: 2/1 is greater than 1.000000",
		`validating root: validating /properties/b: validating /properties/b/items: type: a has type "string", want "number"`: `b[]: type: a has type "string", want "number"`,
		`validating root: required: missing properties: ["x"]`:                                                                `required: missing properties: ["x"]`,
		`validating root: validating /properties/steps/items/properties/tool_name: enum: x does not equal any of: [a]`:        `steps[].tool_name: enum: x does not equal any of: [a]`,
	} {
		if got := cleanSchemaError(in); got != want {
			t.Errorf("cleanSchemaError(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}
