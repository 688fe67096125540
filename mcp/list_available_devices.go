package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// DeviceListResult is list_available_devices' structured result: the HttpRunner seed's two
// lists and every device with its state, a page at a time, with a summary of all pages.
type DeviceListResult struct {
	AndroidDevices []string        `json:"androidDevices" jsonschema:"Android device serials (this page)"`
	IOSDevices     []string        `json:"iosDevices" jsonschema:"iOS device UDIDs (this page)"`
	Devices        []DeviceSummary `json:"devices" jsonschema:"This page"`
	Summary        ListSummary     `json:"summary" jsonschema:"Counts of all matching"`
	NextCursor     string          `json:"next_cursor,omitempty" jsonschema:"Cursor of the next page, if any"`
	Note           string          `json:"note,omitempty"`
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

// listDevicesArgs are list_available_devices' filters and page. Serial is the device
// HttpRunner's clients send with every call: only it is listed.
type listDevicesArgs struct {
	deviceFilter
	Serial   string `json:"serial,omitempty"`
	FreeOnly bool   `json:"free_only,omitempty"`
	pageArgs
}

// Check validates the filters and the page; serial's type and length are checked with the
// general arguments (withGeneralArgs).
func (a *listDevicesArgs) Check() error {
	return errors.Join(a.deviceFilter.Check(), a.pageArgs.Check())
}

// filterPrint is the print of every filter of the call, its cursors carry.
func (a *listDevicesArgs) filterPrint() [filterPrintLen]byte {
	return a.print(strconv.FormatBool(a.FreeOnly), a.Serial)
}

func (a *listDevicesArgs) matches(d broker.DeviceEntry) bool {
	return a.deviceFilter.matches(d) && (!a.FreeOnly || d.State == broker.StateOnline) && (a.Serial == "" || d.Serial == a.Serial)
}

func toolListAvailableDevices() toolDef {
	opts := append([]mcpgo.ToolOption{
		mcpgo.WithDescription("List the devices matching the filters (platform, model, node, state) a page at a time by serial, with counts of all."),
		readOnly(), mcpgo.WithOutputSchema[DeviceListResult](),
	}, deviceFilterParams()...)
	opts = append(opts, mcpgo.WithString(argSerial), // as the device tools show it (HttpRunner clients send it)
		mcpgo.WithBoolean("free_only", mcpgo.Description("Only online (free) devices")))
	tool := mcpgo.NewTool("list_available_devices", append(opts, pageParams()...)...)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a listDevicesArgs
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			if err := g.checkPlatform(a.Platform); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			if a.Serial != "" { // checked as a device tool checks it: known, usable, of platform
				if _, _, errRes := g.resolveDevice(ctx, deviceArgs{Platform: a.Platform, Serial: a.Serial}); errRes != nil {
					return errRes, nil
				}
			}
			end := pageEnd{kind: listDevices, filters: a.filterPrint(), noun: "devices",
				narrow: "platform, state, tags, model, node or free_only"}
			after, err := a.after(end.kind, end.filters)
			if err != nil {
				return g.refuseErr(ctx, err), nil
			}
			devs := g.farm.Devices() // sorted by serial
			devs = slices.DeleteFunc(devs, func(d broker.DeviceEntry) bool { return !g.mayUse(ctx, d) || !a.matches(d) })
			sum := newSummary()
			for _, d := range devs {
				sum.add(d.Platform, d.State, d.Node)
			}
			sum.bound()
			page, more := pageAfter(devs, func(d broker.DeviceEntry) string { return d.Serial }, after, a.Limit)
			b, err := fitPage(len(page), func(n int) any {
				out := devicePage(page[:n], sum)
				if n > 0 {
					out.NextCursor, out.Note = end.tail(page[n-1].Serial, n, len(page), sum.Total, more)
				}
				return out
			})
			if err != nil {
				return errorResult(fmt.Sprintf("list_available_devices: the answer cannot be encoded: %v", err)), nil
			}
			return structuredJSON(ctx, b), nil
		}
	}}
}

// devicePage is the answer holding devs, one page of the devices sum counts.
func devicePage(devs []broker.DeviceEntry, sum ListSummary) DeviceListResult {
	out := DeviceListResult{AndroidDevices: []string{}, IOSDevices: []string{}, Devices: make([]DeviceSummary, 0, len(devs)), Summary: sum}
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
	return out
}
