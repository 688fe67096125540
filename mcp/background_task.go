package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// alreadyRunning refuses a second background task of tool on a device that runs one, in the
// phone-agent seed's words; nil when the device runs none.
func (g *Gateway) alreadyRunning(ctx context.Context, dev broker.DeviceEntry, tool string) *mcpgo.CallToolResult {
	t := dev.Task
	if t == nil || t.Tool != tool {
		return nil
	}
	return g.refuse(ctx, fmt.Sprintf("Agent is already running. Please wait or call abort_task first. (device %s runs %s task %s since %s; get_task_result {\"taskId\": %q} once it ends)",
		dev.Serial, tool, t.ID, t.Started.Format(time.RFC3339), t.ID))
}

// backgroundArgs are what the gateway reads of a background task's arguments.
type backgroundArgs struct {
	Wait *bool  `json:"wait"`
	Goal string `json:"goal"`
}

// waits says whether a background task's caller waits for its end (all but wait: false).
func waits(args json.RawMessage) bool {
	var a backgroundArgs
	return json.Unmarshal(args, &a) != nil || a.Wait == nil || *a.Wait
}

// startDetached submits task and answers at once with its id: the task runs to its end on its
// node whatever becomes of the caller, and get_task_result reads its record then. done is
// called when the node answers.
func (g *Gateway) startDetached(ctx context.Context, task broker.TaskRequest, args json.RawMessage, done func()) *mcpgo.CallToolResult {
	bg := context.WithoutCancel(ctx)
	go func() {
		defer done()
		res, err := g.farm.Run(bg, task, nil)
		if err != nil {
			g.log.Warn("task started without waiting: no answer from its node", "task", task.ID, "tool", task.Tool, "err", err)
			return
		}
		g.rememberLatest(bg, res)
	}()
	var a backgroundArgs
	_ = json.Unmarshal(args, &a)
	return structuredResult(ctx, tools.AgentTaskResult{TaskID: task.ID, Goal: a.Goal, Status: "running",
		Conclusion: "started; poll get_task_result {\"taskId\": \"" + task.ID + "\"} (or get_latest_task) for its end, abort_task stops it"})
}

// errCallerLeft is the answer to a caller who left while its background task runs on.
var errCallerLeft = errors.New("the caller left; the agent task runs on to its end (get_task_result reads it then; abort_task stops it)")

// outliveCaller runs a background task (an agent task) that outlives its caller: a caller that
// disconnects (or cancels its call) leaves it running to its end on its node, as the seed's
// tasks do; only abort_task stops it.
func (g *Gateway) outliveCaller(ctx context.Context, task broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
	type answer struct {
		res broker.TaskResult
		err error
	}
	ch := make(chan answer, 1)
	bg := context.WithoutCancel(ctx)
	go func() {
		res, err := g.farm.Run(bg, task, progress)
		if err == nil && ctx.Err() != nil {
			g.rememberLatest(bg, res) // the caller is gone: runOnDevice will not
		}
		ch <- answer{res, err}
	}()
	select {
	case a := <-ch:
		return a.res, a.err
	case <-ctx.Done():
		return broker.TaskResult{}, errCallerLeft
	}
}
