package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// EmergencyStopResult is emergency_stop's structured result.
type EmergencyStopResult struct {
	Message string   `json:"message" jsonschema:"What was stopped"`
	Aborted []string `json:"aborted" jsonschema:"Tasks cancelled (running or queued)"`
	Halted  bool     `json:"halted" jsonschema:"Halted and held until arm_recover (an arm rig); false for a device with no machine"`
	// Confirmed is false when the halt is held but the machine did not confirm the stop (a
	// frozen controller); omitted when it did, or had nothing to confirm.
	Confirmed *bool `json:"confirmed,omitempty" jsonschema:"false: the stop was not confirmed"`
}

func toolEmergencyStop() toolDef {
	tool := mcpgo.NewTool("emergency_stop",
		mcpgo.WithDescription("Stop a device at once: abort its running task and the holder's queued ones, and halt its machine (an arm rig: feed hold, reset, finger up) "+
			"outside its queue, held until arm_recover: nothing moves meanwhile, whoever calls. Without a machine it is abort_task with all."),
		destructive(true), mcpgo.WithOutputSchema[EmergencyStopResult](),
		mcpgo.WithString(argSerial, mcpgo.Required(), mcpgo.MaxLength(maxSerialLen), mcpgo.Description("The device to stop")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			a := abortArgs{All: true}
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			a.All = true
			if a.Serial == "" {
				return g.refuseBadInput(ctx, "serial is required: the device to stop (list_available_devices shows the serials)"), nil
			}
			if _, ok := g.farm.Device(a.Serial); !ok {
				return g.refuseUnknownDevice(ctx, a.Serial), nil
			}
			if res := g.mayAbort(ctx, a); res != nil {
				return res, nil
			}
			by := holderFrom(ctx) // who stopped it: the halt and its record say so
			ans, err := g.farm.Abort(ctx, broker.AbortRequest{V: broker.WireVersion, Serial: a.Serial, All: true, Halt: true,
				By: by.String(), Holder: &by, Tags: g.callerTags(ctx)})
			if err != nil {
				setOutcome(ctx, broker.OutcomeLost)
				return errorResult(fmt.Sprintf("emergency_stop on %s%s: %v: the device may still be moving; cut its power", a.Serial, lostWords(err), err)), nil
			}
			if ans.Halted && ans.Error != "" {
				return haltUnconfirmed(ctx, a.Serial, ans), nil
			}
			if ans.Error != "" || ans.Code != "" {
				setOutcome(ctx, broker.OutcomeRefused)
				return errorResult(recordedWords(fmt.Sprintf("emergency_stop on %s (%s): %s", a.Serial, ans.Code, ans.Error), ans.Record)), nil
			}
			if res := g.rigNotHalted(ctx, a.Serial, ans); res != nil {
				return res, nil
			}
			out := EmergencyStopResult{Aborted: ans.Aborted, Halted: ans.Halted}
			if out.Aborted == nil {
				out.Aborted = []string{}
			}
			out.Message = recordedWords(withTimedOut(fmt.Sprintf("%s: %d task(s) aborted", a.Serial, len(out.Aborted))+haltedWords(g.farm, a.Serial, ans.Halted), ans.TimedOut), ans.Record)
			return structuredResult(ctx, out), nil
		}
	}}
}

// haltUnconfirmed is the answer of an emergency_stop whose halt is held (the rig refuses
// gestures until arm_recover) but whose controller did not confirm the stop (frozen): an error,
// as docs/arm.md promises (the device may still be moving: a person must act), whose structured
// result says both, halted and not confirmed, so that an agent need not parse the words. What
// to do is the Halter's error's hint (the rig's: cut its power), said once, not again here.
func haltUnconfirmed(ctx context.Context, serial string, ans broker.AbortAnswer) *mcpgo.CallToolResult {
	setOutcome(ctx, broker.OutcomeFailed)
	confirmed := false
	out := EmergencyStopResult{Aborted: ans.Aborted, Halted: true, Confirmed: &confirmed}
	if out.Aborted == nil {
		out.Aborted = []string{}
	}
	out.Message = recordedWords(withTimedOut(fmt.Sprintf("emergency_stop on %s (%s): %d task(s) aborted; %s",
		serial, ans.Code, len(out.Aborted), strings.TrimSuffix(ans.Error, ".")), ans.TimedOut), ans.Record)
	b, _ := json.Marshal(out) // strings and bools: it cannot fail
	res := errorResult(out.Message)
	res.StructuredContent = json.RawMessage(b)
	res.Content = append(res.Content, mcpgo.NewTextContent(string(b))) // its mirror, as withReport's
	return res
}

// rigNotHalted is the error answer of an emergency_stop that left an arm rig unhalted, nil
// when it halted or is no rig (its tasks aborted is all there is to stop). A rig whose link
// is lost has no driver on its node to halt it, nor to keep its halt: it would come back
// online, taking gestures, with no person having looked at it; the caller must know.
func (g *Gateway) rigNotHalted(ctx context.Context, serial string, ans broker.AbortAnswer) *mcpgo.CallToolResult {
	d, ok := g.farm.Device(serial)
	if ans.Halted || !ok || d.Platform != device.PlatformArm {
		return nil
	}
	setOutcome(ctx, broker.OutcomeFailed)
	why := "its node did not halt it"
	if d.State == broker.StateOffline {
		why = fmt.Sprintf("it is offline (%s): its node cannot reach the controller, so nothing halted it and no halt is kept: "+
			"it comes back online, taking gestures, when its link returns", d.Reason)
	}
	return errorResult(recordedWords(withTimedOut(fmt.Sprintf("emergency_stop on %s: %d task(s) aborted, but the rig is NOT halted: %s. "+
		"If it may still move, cut its power; once it is back, call emergency_stop again to hold it until arm_recover", serial, len(ans.Aborted), why), ans.TimedOut), ans.Record))
}

// haltedWords is what emergency_stop's message says of a halt. A rig offline has no link from
// its node: its node only kept the halt (nodes/halt.go, haltGone), and nothing told the rig to
// stop, so the caller must not read that its machine is halted.
func haltedWords(farm Farm, serial string, halted bool) string {
	if !halted {
		return ""
	}
	if d, ok := farm.Device(serial); ok && d.State == broker.StateOffline {
		return fmt.Sprintf("; it is offline (%s), so its machine could not be told to stop now: if it may still move, cut its power. "+
			"Its halt is recorded: it comes back halted, taking no gestures until arm_recover", d.Reason)
	}
	return "; its machine is halted until arm_recover"
}

// recordedWords adds to an emergency_stop's message where its node recorded it (record: the
// id of its task record; "" from an older node, which records none): the device's timeline.
func recordedWords(msg, record string) string {
	if record == "" {
		return msg
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg + " Recorded as task " + record + " on the device's timeline (get_task_result, corral tasks --tool emergency_stop)."
}
