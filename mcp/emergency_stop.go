package mcp

import (
	"context"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// EmergencyStopResult is emergency_stop's structured result.
type EmergencyStopResult struct {
	Message string   `json:"message" jsonschema:"What was stopped"`
	Aborted []string `json:"aborted" jsonschema:"Ids of the tasks cancelled (running or queued)"`
	Halted  bool     `json:"halted" jsonschema:"The device's machine is halted and held until arm_recover (an arm rig); false for devices without a machine, whose tasks are only aborted"`
}

func toolEmergencyStop() toolDef {
	tool := mcpgo.NewTool("emergency_stop",
		mcpgo.WithDescription("Stop a device at once: abort its running task and the holder's queued ones, and halt its machine (an arm rig: feed hold, reset, finger up) "+
			"outside its queue, holding it so until arm_recover: nothing moves meanwhile, whoever calls. On devices without a machine it is abort_task with all."),
		destructive(true), mcpgo.WithOutputSchema[EmergencyStopResult](),
		mcpgo.WithString(argSerial, mcpgo.Required(), mcpgo.MaxLength(maxSerialLen), mcpgo.Description("The device to stop")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			a := abortArgs{All: true}
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuse(ctx, err.Error()), nil
			}
			a.All = true
			if a.Serial == "" {
				return g.refuse(ctx, "serial is required: the device to stop (list_available_devices shows the serials)"), nil
			}
			if _, ok := g.farm.Device(a.Serial); !ok {
				return g.refuse(ctx, fmt.Sprintf("unknown device %q: no device in the farm has this serial; call list_available_devices for the serials", a.Serial)), nil
			}
			if res := g.mayAbort(ctx, a); res != nil {
				return res, nil
			}
			ans, err := g.farm.Abort(ctx, broker.AbortRequest{V: broker.WireVersion, Serial: a.Serial, All: true, Halt: true,
				By: holderFrom(ctx).String(), Tags: g.callerTags(ctx)})
			if err != nil {
				setOutcome(ctx, broker.OutcomeLost)
				return errorResult(fmt.Sprintf("emergency_stop on %s: %v: the device may still be moving; cut its power", a.Serial, err)), nil
			}
			if ans.Error != "" || ans.Code != "" {
				setOutcome(ctx, broker.OutcomeRefused)
				return errorResult(fmt.Sprintf("emergency_stop on %s (%s): %s", a.Serial, ans.Code, ans.Error)), nil
			}
			out := EmergencyStopResult{Aborted: ans.Aborted, Halted: ans.Halted}
			if out.Aborted == nil {
				out.Aborted = []string{}
			}
			out.Message = fmt.Sprintf("%s: %d task(s) aborted", a.Serial, len(out.Aborted))
			if ans.Halted {
				out.Message += "; its machine is halted until arm_recover"
			}
			return structuredResult(ctx, out), nil
		}
	}}
}
