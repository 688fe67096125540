package mcp

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/corral-farm/corral/nodes/tools"
)

// gatewayOnly are the tools that run no task on a device.
var gatewayOnly = []string{"list_available_devices", "get_device_status", "select_device", "acquire_device",
	"release_device", "list_leases", "abort_task", "emergency_stop", "get_task_result", "get_latest_task"}

func TestCatalogIsConsistent(t *testing.T) {
	ops := tools.DefaultOps()
	seen := map[string]bool{}
	for _, d := range catalog() {
		tool := d.tool
		if seen[tool.Name] {
			t.Errorf("tool %s twice", tool.Name)
		}
		seen[tool.Name] = true
		if tool.Description == "" || d.handler == nil {
			t.Errorf("%s: no description or handler", tool.Name)
		}
		a := tool.Annotations
		if a.DestructiveHint == nil || a.OpenWorldHint == nil || *a.OpenWorldHint != slices.Contains(openWorld, tool.Name) {
			t.Errorf("%s: destructiveHint and openWorldHint must be explicit; only %v reach out (a URL, the model)", tool.Name, openWorld)
		}
		if hint(a.ReadOnlyHint, false) && hint(a.DestructiveHint, true) {
			t.Errorf("%s: read-only and destructive", tool.Name)
		}
		if tool.OutputSchema.Type != "object" {
			t.Errorf("%s: no output schema", tool.Name)
		}
		if _, ok := ops[tool.Name]; !ok && !slices.Contains(gatewayOnly, tool.Name) {
			t.Errorf("device tool %s has no node op", tool.Name)
		}
		if err := validateOutput(tool.Name, map[string]any{}); err == nil && len(tool.OutputSchema.Required) > 0 {
			t.Errorf("%s: an empty result passes a schema with required fields", tool.Name)
		}
	}
	for name := range ops {
		if !seen[name] {
			t.Errorf("node op %s has no tool", name)
		}
	}
}

// openWorld are the tools that reach beyond the farm: app_install (a URL) and the AI tools
// (the model's endpoint).
var openWorld = []string{"app_install", "run_agent_task", "ai_action", "ai_query"}

func TestDestructiveTools(t *testing.T) {
	// run_agent_task: an agent may do anything a caller of the other tools may.
	want := []string{"release_device", "abort_task", "emergency_stop", "app_terminate", "app_uninstall", "app_clear", "force_quit", "run_agent_task"}
	for _, d := range catalog() {
		got := hint(d.tool.Annotations.DestructiveHint, true)
		if got != slices.Contains(want, d.tool.Name) {
			t.Errorf("%s: destructiveHint %v", d.tool.Name, got)
		}
	}
}

// hint is an annotation's value, or the spec's default when it is left out.
func hint(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// Every top-level property of every schema the catalog serves is a schema object: MCP clients
// built on the TypeScript SDK (the Inspector, desktop clients) check those and refuse the whole
// tools/list over a boolean schema such as `"steps": true`, which encoding an `any` field
// without a description gives (deeper ones they do not check).
func TestCatalogSchemasHaveNoBooleanProperties(t *testing.T) {
	for _, d := range catalog() {
		tool := frozen(d.tool)
		for kind, raw := range map[string]json.RawMessage{"input": tool.RawInputSchema, "output": tool.RawOutputSchema} {
			var schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(raw, &schema); err != nil {
				t.Fatalf("%s %s schema: %v", tool.Name, kind, err)
			}
			for name, p := range schema.Properties {
				if len(p) == 0 || p[0] != '{' {
					t.Errorf("%s %s schema: property %s is %s, not a schema object; give the field a jsonschema description or a type", tool.Name, kind, name, p)
				}
			}
		}
	}
}
