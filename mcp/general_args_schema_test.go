package mcp

import (
	"encoding/json"
	"slices"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes/tools"
)

// The httprunner profile's gateway tools list platform and serial as its device tools do (a
// bare string), and, as its read-only device tools, none of the six general options; select_device's
// serial may be left out.
func TestHttpRunnerGatewayToolsListPlatformAndSerial(t *testing.T) {
	listed, _ := listTools(t, tools.HttpRunner)
	for _, name := range []string{"list_available_devices", "select_device", "release_device", "screenshot"} {
		i := slices.IndexFunc(listed, func(tl mcpgo.Tool) bool { return tl.Name == name })
		if i < 0 {
			t.Fatalf("--tools httprunner does not serve %s", name)
		}
		var props mcpgo.ToolInputSchema // as the client got it
		raw := listed[i].RawInputSchema
		if raw == nil {
			raw, _ = json.Marshal(listed[i].InputSchema)
		}
		if err := json.Unmarshal(raw, &props); err != nil {
			t.Fatalf("%s's input schema: %v", name, err)
		}
		for _, arg := range []string{argPlatform, argSerial} {
			p, ok := props.Properties[arg].(map[string]any)
			if !ok || p["type"] != "string" {
				t.Errorf("%s's %s is %v, want a string", name, arg, props.Properties[arg])
			}
		}
		for _, o := range generalOptions {
			if _, ok := props.Properties[o]; ok {
				t.Errorf("%s lists %s: HttpRunner's general options are unlisted where they mean nothing", name, o)
			}
		}
		if name == "select_device" && slices.Contains(props.Required, argSerial) {
			t.Errorf("select_device requires serial; without it it takes the first free device")
		}
	}
}

// generalOptions are the options the device tools take unlisted (tools.SeedOptions): what a
// gateway tool takes is what a device tool does.
func TestGeneralOptionsAreTheDeviceToolsOnes(t *testing.T) {
	for _, o := range generalOptions {
		if !tools.TakesUnlisted("screenshot", o) {
			t.Errorf("screenshot does not take %s unlisted: generalOptions is not tools.SeedOptions", o)
		}
	}
	if !isGeneralOption("Anti_Risk") || isGeneralOption("anti_rsik") {
		t.Error("isGeneralOption matches keys not as encoding/json matches them to fields")
	}
}
