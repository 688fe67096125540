package mcp

import (
	"context"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// A node aborts a task named by task_id only on the device serial names, when the abort names
// one, and aborts nothing when the task is on another device. Its answer, nothing aborted,
// must not then read as the task having left its queue or being aborted already: it still
// waits or runs, on that other device.

// notOnDevice refuses an abort_task of task id on device serial that aborted nothing, when the
// registry shows the task on another device: where it waits or runs, as the caller may see
// that device (deviceRunning and deviceQueued see only those); nil when it shows it on serial,
// or nowhere the caller may see.
func (g *Gateway) notOnDevice(ctx context.Context, id, serial string) *mcpgo.CallToolResult {
	where := ""
	if d, ok := g.deviceRunning(ctx, id); ok && d.Serial != serial {
		where = fmt.Sprintf("it runs on device %s (%s)", d.Serial, d.Task.Tool)
	} else if d, place, ok := g.deviceQueued(ctx, id); ok && d.Serial != serial {
		where = fmt.Sprintf("it waits in device %s's queue%s", d.Serial, placeText(d, id))
		if d.State == broker.StateOffline {
			where = "it " + waitedAtLostNode(d, place)
		}
	}
	if where == "" {
		return nil
	}
	return g.refuseBadInput(ctx, fmt.Sprintf("task %s is not on device %s: %s; nothing was aborted. "+
		"abort_task {\"task_id\": %q} without serial aborts it where it is", id, serial, where, id))
}

// notOnDeviceAtAll refuses an abort_task of task id on device serial when no task with the id
// runs or waits anywhere the caller may see and no record of one is kept: the id may be wrong,
// or the task's device one the caller may not see (it is not named), or it was queued just now
// elsewhere (the registry lags its node by up to a quarter second).
func (g *Gateway) notOnDeviceAtAll(ctx context.Context, id, serial string) *mcpgo.CallToolResult {
	return g.refuseBadInput(ctx, fmt.Sprintf("task %s is not on device %s: no task with this id runs or waits there, and no record of one is kept; "+
		"nothing was aborted. abort_task {\"task_id\": %q} without serial aborts it on whatever device it is; "+
		"a task's id is the taskId in run_agent_task's answer, the [task …] note of a tool result, or in get_latest_task, "+
		"`corral tasks` and the console's device page", id, serial, id))
}
