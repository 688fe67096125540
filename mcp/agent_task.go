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

// agentTool is the tool of agent tasks, which the gateway treats apart: one at a time per device
// with the seed's words, and, with wait:false, started without waiting for its end.
const agentTool = "run_agent_task"

// agentRunning is the phone-agent seed's refusal of a second agent task on a device, nil when
// the device runs none.
func (g *Gateway) agentRunning(ctx context.Context, dev broker.DeviceEntry) *mcpgo.CallToolResult {
	t := dev.Task
	if t == nil || t.Tool != agentTool {
		return nil
	}
	return g.refuse(ctx, fmt.Sprintf("Agent is already running. Please wait or call abort_task first. (device %s runs agent task %s since %s; get_task_result {\"taskId\": %q} once it ends)",
		dev.Serial, t.ID, t.Started.Format(time.RFC3339), t.ID))
}

// detached says whether an agent task's arguments ask not to wait for its end (wait: false).
func detached(tool string, args json.RawMessage) bool {
	if tool != agentTool {
		return false
	}
	var a struct {
		Wait *bool `json:"wait"`
	}
	return json.Unmarshal(args, &a) == nil && a.Wait != nil && !*a.Wait
}

// startDetached submits task and answers at once with its id: the task runs to its end on its
// node whatever becomes of the caller, and get_task_result reads its record then. done is
// called when the node answers.
func (g *Gateway) startDetached(ctx context.Context, task broker.TaskRequest, goal string, done func()) *mcpgo.CallToolResult {
	bg := context.WithoutCancel(ctx)
	go func() {
		defer done()
		res, err := g.farm.Run(bg, task, nil)
		if err != nil {
			g.log.Warn("agent task started without waiting: no answer from its node", "task", task.ID, "err", err)
			return
		}
		g.rememberLatest(bg, res)
	}()
	return structuredResult(ctx, tools.AgentTaskResult{TaskID: task.ID, Goal: goal, Status: "running",
		Conclusion: "started; poll get_task_result {\"taskId\": \"" + task.ID + "\"} (or get_latest_task) for its end, abort_task stops it"})
}

// errCallerLeft is the answer to a caller who left while its agent task runs on.
var errCallerLeft = errors.New("the caller left; the agent task runs on to its end (get_task_result reads it then; abort_task stops it)")

// outliveCaller runs an agent task that outlives its caller: a caller that disconnects (or
// cancels its call) leaves it running to its end on its node, as the seed's tasks do; only
// abort_task stops it.
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
