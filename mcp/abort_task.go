package mcp

import (
	"context"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// abortArgs choose what abort_task cancels.
type abortArgs struct {
	taskIDArgs
	Serial string `json:"serial,omitempty"`
	Lease  string `json:"lease,omitempty"`
	All    bool   `json:"all,omitempty"`

	taskID string // the task id after Check
}

// Check validates the arguments.
func (a *abortArgs) Check() error {
	id, err := a.taskIDArgs.id()
	if err != nil {
		return err
	}
	a.taskID = id
	if len(a.Serial) > maxSerialLen {
		return fmt.Errorf("serial is %d bytes long; at most %d", len(a.Serial), maxSerialLen)
	}
	if a.Lease != "" {
		return checkID(argLease, a.Lease)
	}
	return nil
}

// AbortResult is abort_task's structured result.
type AbortResult struct {
	Message string   `json:"message" jsonschema:"What was aborted, or that nothing was running"`
	Aborted []string `json:"aborted" jsonschema:"Ids of the tasks cancelled (running or queued)"`
}

func toolAbortTask() toolDef {
	tool := mcpgo.NewTool("abort_task",
		mcpgo.WithDescription("Abort a running task, chosen by serial, task_id or lease; with none of them, the caller's running agent task (run_agent_task), "+
			"else in a session the selected device's task. It does not wait behind the task: the task's context is cancelled at once and the device is freed. With all, the same holder's queued tasks are dropped too."),
		destructive(true), mcpgo.WithOutputSchema[AbortResult](),
		mcpgo.WithString(argSerial, mcpgo.MaxLength(maxSerialLen), mcpgo.Description("Abort the task running on this device")),
		mcpgo.WithString("task_id", mcpgo.MaxLength(128), mcpgo.Description("Abort this task (taskId is accepted too)")),
		mcpgo.WithString("taskId", mcpgo.MaxLength(128), mcpgo.Description("Same as task_id (phone-agent spelling)")),
		mcpgo.WithString(argLease, mcpgo.MaxLength(128), mcpgo.Description("Abort the task running under this lease")),
		mcpgo.WithBoolean("all", mcpgo.Description("Also drop the holder's queued tasks on that device")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a abortArgs
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			if a.Serial == "" && a.taskID == "" && a.Lease == "" {
				if own := g.ownAgentTasks(ctx); len(own) > 0 {
					return g.abortOwn(ctx, own, a.All), nil
				}
				sd, ok := g.sessionDevice(ctx)
				if !ok {
					return structuredResult(ctx, AbortResult{Message: noTaskRunning, Aborted: []string{}}), nil
				}
				a.Serial = sd.Serial
			}
			if a.Serial != "" {
				if _, ok := g.farm.Device(a.Serial); !ok {
					return g.refuseUnknownDevice(ctx, a.Serial), nil
				}
			}
			if a.Lease != "" {
				if res := g.abortLeaseRefused(ctx, a.Lease); res != nil {
					return res, nil
				}
			}
			if broker.IsGroupHandle(a.Lease) {
				return g.abortGroup(ctx, a), nil
			}
			if res := g.mayAbort(ctx, a); res != nil {
				return res, nil
			}
			ans, err := g.farm.Abort(ctx, broker.AbortRequest{V: broker.WireVersion, Serial: a.Serial, TaskID: a.taskID,
				Lease: a.Lease, All: a.All, By: holderFrom(ctx).String(), Tags: g.callerTags(ctx), Principal: g.abortPrincipal(ctx)})
			if err != nil {
				setOutcome(ctx, broker.OutcomeLost)
				return errorResult(fmt.Sprintf("abort_task on %s%s: %v", a.target(), lostWords(err), err)), nil
			}
			if ans.Code == broker.CodeDenied {
				return g.abortDenied(ctx, a.taskID, a.Serial, ans), nil
			}
			if ans.Error != "" || ans.Code != "" {
				setOutcome(ctx, broker.OutcomeRefused)
				return errorResult(fmt.Sprintf("abort_task on %s refused (%s): %s", a.target(), ans.Code, ans.Error)), nil
			}
			out := AbortResult{Aborted: ans.Aborted}
			if out.Aborted == nil {
				out.Aborted = []string{}
			}
			switch {
			case len(out.Aborted) == 0 && len(ans.TimedOut) > 0:
				out.Message = nothingAborted(a.target(), ans.TimedOut)
			case len(out.Aborted) == 0 && a.taskID != "":
				return g.notRunning(ctx, a.taskID, a.Serial), nil
			case len(out.Aborted) == 0:
				out.Message = fmt.Sprintf("No task is currently running on %s.", a.target())
			default:
				out.Message = withTimedOut(fmt.Sprintf("Aborted %d task(s) on %s: %s.", len(out.Aborted), a.target(), strings.Join(out.Aborted, ", ")), ans.TimedOut)
			}
			return structuredResult(ctx, out), nil
		}
	}}
}

// target names what the abort was aimed at.
func (a *abortArgs) target() string {
	var parts []string
	if a.Serial != "" {
		parts = append(parts, "device "+a.Serial)
	}
	if a.taskID != "" {
		parts = append(parts, "task "+a.taskID)
	}
	if a.Lease != "" {
		parts = append(parts, "the lease's device")
	}
	return strings.Join(parts, ", ")
}
