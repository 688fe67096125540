package mcp

import (
	"cmp"
	"context"
	"slices"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// DeviceListResult is list_available_devices' structured result: the HttpRunner seed's two
// lists, plus every device with its state.
type DeviceListResult struct {
	AndroidDevices []string        `json:"androidDevices" jsonschema:"Android device serials"`
	IOSDevices     []string        `json:"iosDevices" jsonschema:"iOS device UDIDs"`
	Devices        []DeviceSummary `json:"devices" jsonschema:"Every device with its state"`
}

// DeviceSummary is one device as list_available_devices shows it.
type DeviceSummary struct {
	Serial   string   `json:"serial"`
	Platform string   `json:"platform"`
	Model    string   `json:"model,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Node     string   `json:"node"`
	State    string   `json:"state" jsonschema:"online, leased, busy, draining, unhealthy or offline"`
	Holder   string   `json:"holder,omitempty"`
}

func toolListAvailableDevices() toolDef {
	return toolDef{
		tool: mcpgo.NewTool("list_available_devices",
			mcpgo.WithDescription("List the farm's devices with platform, model, node and state."),
			readOnly(), mcpgo.WithOutputSchema[DeviceListResult]()),
		handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
			return func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				out := DeviceListResult{AndroidDevices: []string{}, IOSDevices: []string{}, Devices: []DeviceSummary{}}
				devs := slices.DeleteFunc(g.farm.Devices(), func(d broker.DeviceEntry) bool { return !g.mayUse(ctx, d) })
				slices.SortFunc(devs, func(a, b broker.DeviceEntry) int { return cmp.Compare(a.Serial, b.Serial) })
				for _, d := range devs {
					switch d.Platform {
					case device.PlatformAndroid:
						out.AndroidDevices = append(out.AndroidDevices, d.Serial)
					case device.PlatformIOS:
						out.IOSDevices = append(out.IOSDevices, d.Serial)
					}
					out.Devices = append(out.Devices, DeviceSummary{Serial: d.Serial, Platform: d.Platform, Model: d.Model,
						Tags: d.Tags, Node: d.Node, State: d.State, Holder: d.Holder})
				}
				return structuredResult(ctx, out), nil
			}
		},
	}
}
