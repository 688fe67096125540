package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// DeviceStatusResult is get_device_status' structured result (phone-agent seed, plus the
// registry's view of the device).
type DeviceStatusResult struct {
	Connected bool     `json:"connected" jsonschema:"Whether the device is connected (any state but offline)"`
	Serial    string   `json:"serial" jsonschema:"Device serial"`
	Platform  string   `json:"platform" jsonschema:"Device platform"`
	Model     string   `json:"model,omitempty" jsonschema:"Device model"`
	Brand     string   `json:"brand,omitempty" jsonschema:"Device brand"`
	Release   string   `json:"release,omitempty" jsonschema:"OS version"`
	SDK       string   `json:"sdk,omitempty" jsonschema:"SDK level (Android)"`
	Node      string   `json:"node" jsonschema:"Edge node the device is attached to"`
	State     string   `json:"state" jsonschema:"online, leased, busy, draining, unhealthy or offline"`
	Reason    string   `json:"reason,omitempty" jsonschema:"Why the device is unhealthy or offline"`
	Holder    string   `json:"holder,omitempty" `
	Tags      []string `json:"tags,omitempty" jsonschema:"Device tags"`
	// Extra are the driver's facts of the device (an iPhone's name, build and developer mode).
	Extra map[string]string `json:"extra,omitempty" jsonschema:"More facts the driver tells of the device (iOS: name, build, developer_mode)"`
}

// A device that is not connected is no error in the phone-agent seed: get_device_status
// answers {"connected": false}. So it does for a device the farm knows that is offline, and when
// the caller names none and may use none at all (none of platform, if it gave one). A serial no
// device in the farm has stays an error: the seed takes no serial, and that one is a typo or a
// device of another farm, which {"connected": false} would hide.

// noDeviceStatus is get_device_status' answer when the caller names no device and may use
// none (of platform, when it gave one).
func noDeviceStatus(platform string) DeviceStatusResult {
	what := "no device"
	if platform != "" {
		what = "no " + platform + " device"
	}
	return DeviceStatusResult{Connected: false, Platform: platform, State: broker.StateOffline,
		Reason: what + " in the farm that this caller may use: list_available_devices lists them once a node serves one"}
}

// seesDevice says whether the caller may use some device the registry holds (of platform, when
// it gives one), whatever its state.
func (g *Gateway) seesDevice(ctx context.Context, platform string) bool {
	for _, d := range g.farm.Devices() {
		if (platform == "" || d.Platform == platform) && g.mayUseSerial(ctx, d.Serial) {
			return true
		}
	}
	return false
}

// hasSelection says whether the caller's protocol session selected a device (select_device).
func (g *Gateway) hasSelection(ctx context.Context) bool {
	s := mcpserver.ClientSessionFromContext(ctx)
	if s == nil || s.SessionID() == "" {
		return false
	}
	d, ok := g.farm.SessionDevice(ctx, s.SessionID())
	return ok && d.Serial != ""
}

func toolGetDeviceStatus(platforms []string) toolDef {
	tool := mcpgo.NewTool("get_device_status",
		mcpgo.WithDescription("Get one device's status: connected, model, brand, OS release, SDK, node, state and lease holder; connected: false if offline."),
		readOnly(), mcpgo.WithOutputSchema[DeviceStatusResult](),
		platformParam(platforms), mcpgo.WithString(argSerial, mcpgo.MaxLength(maxSerialLen),
			mcpgo.Description("Device serial (Android serial, iOS UDID, browser id). Optional after select_device in a session.")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a deviceSelector
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			if a.Serial == "" {
				a.Serial = g.onlyDevice(ctx, a.Platform)
			}
			if a.Serial == "" && !g.hasSelection(ctx) && !g.seesDevice(ctx, a.Platform) {
				return structuredResult(ctx, noDeviceStatus(a.Platform)), nil // the seed's {"connected": false}
			}
			d, _, errRes := g.resolveDevice(ctx, deviceArgs{Platform: a.Platform, Serial: a.Serial})
			if errRes != nil {
				return errRes, nil
			}
			return structuredResult(ctx, DeviceStatusResult{Connected: d.State != broker.StateOffline,
				Serial: d.Serial, Platform: d.Platform, Model: d.Model, Brand: d.Brand, Release: d.Release, SDK: d.SDK,
				Node: d.Node, State: d.State, Reason: d.Reason, Holder: d.Holder, Tags: d.Tags, Extra: d.Extra}), nil
		}
	}}
}
