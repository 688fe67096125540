package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/tools"
)

// On a farm with no sessions bucket (no gateway ever ran: clifarm_nosessions.go) abort_task {}
// in a corral call cannot find the agent task an earlier corral call started, which is not kept
// as the CLI's latest: the in-process gateway answered "No task is currently running." while
// that task ran. abortNotKept has the answer say why, and name the agent tasks corral calls
// run now, each with the command that stops it (as latestNotKept does for get_latest_task).

// abortNotKept returns res, abort_task's answer of nothing aborted when called with no serial,
// task id or lease on a farm with no sessions bucket, its message saying that an earlier corral
// call's task is not kept and naming the running agent tasks of corral calls (flags: how a
// command reaches the same farm, sameFarm); any other result as it is.
func (f *cliFarm) abortNotKept(ctx context.Context, tool string, args map[string]any, res *mcpgo.CallToolResult, flags string) *mcpgo.CallToolResult {
	var rec mcp.AbortResult
	if tool != "abort_task" || res == nil || res.IsError || abortTargeted(args) || structured(res, &rec) != nil ||
		len(rec.Aborted) > 0 || !f.noSessions(ctx) {
		return res
	}
	rec.Message = fmt.Sprintf("Nothing aborted: no agent task of this corral call runs, and an earlier corral call's cannot be "+
		"found, as this farm's NATS has no %s bucket, which a gateway makes (corral gateway or corral up), so no corral "+
		"call's task is kept as the latest for the next. ", broker.SessionBucket)
	running := f.cliAgentTasks(flags)
	if len(running) == 0 {
		rec.Message += "No agent task started by a corral call runs now; corral tasks " + flags +
			"--tool run_agent_task --limit 1 lists the latest."
	} else {
		rec.Message += "Running now, started by corral calls: " + strings.Join(running, "; ") + "."
	}
	return reworded(res, rec, rec.Message)
}

// abortTargeted says whether abort_task's arguments name what to abort: then its answer is
// about that, not about the caller's latest task.
func abortTargeted(args map[string]any) bool {
	for _, k := range []string{"serial", "task_id", "taskId", "lease"} {
		if v, _ := args[k].(string); v != "" {
			return true
		}
	}
	return false
}

// cliAgentTasks describes the background (agent) tasks the registry shows held by the CLI's
// holder, anonymous corral-cli, each with the corral call (flags: sameFarm) that stops it, oldest
// first.
func (f *cliFarm) cliAgentTasks(flags string) []string {
	type run struct {
		id, serial, tool string
		started          time.Time
	}
	var runs []run
	for _, d := range f.Devices() {
		t := d.Task
		if t == nil || t.ID == "" || t.Holder == nil || t.Holder.Principal != broker.Anonymous || t.Holder.Client != cliClientName {
			continue
		}
		if spec, ok := tools.Lookup(t.Tool); ok && spec.Background {
			runs = append(runs, run{t.ID, d.Serial, t.Tool, t.Started})
		}
	}
	slices.SortFunc(runs, func(a, b run) int { return a.started.Compare(b.started) })
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = fmt.Sprintf("task %s (%s on device %s, since %s), which corral call %sabort_task '{\"task_id\":\"%s\"}' stops",
			r.id, r.tool, r.serial, r.started.Local().Format(time.TimeOnly), flags, r.id)
	}
	return out
}
