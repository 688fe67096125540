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

func toolGetDeviceStatus(platforms []string) toolDef {
	tool := mcpgo.NewTool("get_device_status",
		mcpgo.WithDescription("Get one device's status: connected, model, brand, OS release, SDK, node, state and lease holder."),
		readOnly(), mcpgo.WithOutputSchema[DeviceStatusResult](),
		platformParam(platforms), mcpgo.WithString(argSerial, mcpgo.MaxLength(maxSerialLen),
			mcpgo.Description("Device serial (Android serial, iOS UDID, browser id). Optional after select_device in a session.")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a deviceSelector
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuse(ctx, err.Error()), nil
			}
			if a.Serial == "" {
				a.Serial = g.onlyDevice(ctx, a.Platform)
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
