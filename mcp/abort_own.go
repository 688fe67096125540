package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// noTaskRunning is abort_task's answer when the caller has nothing to abort (phone-agent seed).
const noTaskRunning = "No task is currently running."

// ownAgentTasks are the caller's running agent tasks, what abort_task without arguments stops
// (the seed's abort_task takes none): those its session (without one, its holder: principal,
// client and Corral-Caller tag) sent through this gateway; with a session also its latest
// agent task if it still runs (the sessions KV keeps its id across a gateway restart); without
// one also those the registry shows its holder running, which another gateway may have sent.
// Another Corral-Caller client of the same principal and client name is another holder: its
// tasks are not the caller's to stop while the caller has one of its own. When it has none,
// abort_task {} stops the agent task get_latest_task {} shows it, if that still runs
// (latestAgentTask): each corral call is a caller of its own, and the one after
// `run_agent_task {"wait": false}` stops the task it reads as its latest.
func (g *Gateway) ownAgentTasks(ctx context.Context) []agentRun {
	if own := g.sessionAgentTasks(ctx); len(own) > 0 {
		return own
	}
	if r, ok := g.latestAgentTask(ctx); ok {
		return []agentRun{r}
	}
	return nil
}

// latestAgentTask is the caller's latest agent task, as get_latest_task {} shows it (same key,
// which no other tool call moves), when it still runs.
func (g *Gateway) latestAgentTask(ctx context.Context) (agentRun, bool) {
	who := latestOf(ctx)
	id, ok := g.farm.LatestTask(ctx, agentTaskOf(who))
	if !ok {
		return agentRun{}, false
	}
	t, ok := g.runningShown(ctx, id)
	if !ok || !isBackground(t.Tool) {
		return agentRun{}, false
	}
	return agentRun{id: id, serial: t.Serial, tool: t.Tool, who: who, started: t.Started}, true
}

// sessionAgentTasks are the running agent tasks of the caller's own session (ownAgentTasks).
func (g *Gateway) sessionAgentTasks(ctx context.Context) []agentRun {
	who := latestOf(ctx)
	own := g.agents.of(who)
	if !strings.HasPrefix(who, "holder:") {
		// Its latest agent task, kept in the sessions KV: sent before this gateway restarted,
		// or by another gateway that had the session.
		if r, ok := g.storedAgentTask(ctx, who); ok && !slices.ContainsFunc(own, func(o agentRun) bool { return o.id == r.id }) {
			own = append(own, r)
		}
		return own
	}
	holder := holderFrom(ctx)
	// who is the holder's name, shared by its Corral-Caller clients (get_latest_task is).
	own = slices.DeleteFunc(own, func(r agentRun) bool { return r.holder != holder })
	for _, d := range g.farm.Devices() {
		t := d.Task
		// ==, not Is: a task without a session tag (an older gateway's) may be another's.
		if t == nil || t.Holder == nil || *t.Holder != holder || !isBackground(t.Tool) || !g.mayUseSerial(ctx, d.Serial) {
			continue
		}
		known := false
		for _, r := range own {
			known = known || r.id == t.ID
		}
		if !known {
			own = append(own, agentRun{id: t.ID, serial: d.Serial, tool: t.Tool, who: who, started: t.Started})
		}
	}
	return own
}

// abortOwn aborts the caller's agent tasks (and with all, the same holder's queued tasks on
// their devices).
func (g *Gateway) abortOwn(ctx context.Context, own []agentRun, all bool) *mcpgo.CallToolResult {
	out := AbortResult{Aborted: []string{}}
	var what, timedOut, where []string
	for _, r := range own {
		ans, err := g.farm.Abort(ctx, broker.AbortRequest{V: broker.WireVersion, Serial: r.serial, TaskID: r.id, All: all,
			By: holderFrom(ctx).String(), Tags: g.callerTags(ctx), Principal: g.abortPrincipal(ctx)})
		if err != nil {
			setOutcome(ctx, broker.OutcomeLost)
			return errorResult(fmt.Sprintf("abort_task of %s task %s on device %s: %v", r.tool, r.id, r.serial, err))
		}
		if ans.Error != "" || ans.Code != "" {
			setOutcome(ctx, broker.OutcomeRefused)
			return errorResult(fmt.Sprintf("abort_task of %s task %s on device %s refused (%s): %s", r.tool, r.id, r.serial, ans.Code, ans.Error))
		}
		if len(ans.TimedOut) > 0 {
			timedOut = append(timedOut, ans.TimedOut...)
			where = append(where, "device "+r.serial)
		}
		for _, id := range ans.Aborted {
			out.Aborted = append(out.Aborted, id)
			if id == r.id {
				what = append(what, fmt.Sprintf("%s (%s on device %s)", id, r.tool, r.serial))
			} else {
				what = append(what, id+" (queued)")
			}
		}
	}
	switch {
	case len(out.Aborted) == 0 && len(timedOut) > 0:
		out.Message = nothingAborted(strings.Join(where, ", "), timedOut)
	case len(out.Aborted) == 0: // they ended meanwhile, or an abort before this one ends them
		out.Message = g.nothingLeft(ctx, own)
	case len(out.Aborted) == 1:
		out.Message = withTimedOut("Task aborted: "+what[0]+".", timedOut)
	default:
		out.Message = withTimedOut("Tasks aborted: "+strings.Join(what, ", ")+".", timedOut)
	}
	return structuredResult(ctx, out)
}

// nothingLeft is abortOwn's answer when its nodes aborted none of own: one whose record is not
// written yet is still ending, aborted by an earlier abort (its node lists a task once, for the
// abort that stopped it), and is told as that; otherwise they ended meanwhile.
func (g *Gateway) nothingLeft(ctx context.Context, own []agentRun) string {
	for _, r := range own {
		if _, err := g.farm.TaskRecord(ctx, r.id); errors.Is(err, broker.ErrNotFound) {
			return alreadyAborting(r.id, fmt.Sprintf("%s on device %s", r.tool, r.serial))
		}
	}
	return noTaskRunning
}

// alreadyAborting says that task id (what it is, in words) is being aborted already.
func alreadyAborting(id, what string) string {
	return fmt.Sprintf("Task %s (%s) is already being aborted: nothing more to abort. get_task_result {\"taskId\": %q} "+
		"shows how it ended once it has.", id, what, id)
}

// notRunning answers an abort_task of a task id (on device serial, if it names one) that its
// node no longer runs: one on another device than serial is refused, named where it is
// (notOnDevice); one the registry still shows running is being aborted already; a task that
// already ended says how it ended; an id no task has is bad input. The record is read as a
// poll: an id no task has is answered at once, without the grace for a record on its way
// (only a task this gateway had the answer of lately may have one).
func (g *Gateway) notRunning(ctx context.Context, id, serial string) *mcpgo.CallToolResult {
	none := AbortResult{Aborted: []string{}, Message: fmt.Sprintf("No task is currently running on task %s.", id)}
	rec, err := g.farm.PollTaskRecord(ctx, id)
	switch {
	case errors.Is(err, broker.ErrNotFound):
		if serial != "" {
			if res := g.notOnDevice(ctx, id, serial); res != nil {
				return res
			}
		}
		if d, ok := g.deviceRunning(ctx, id); ok {
			none.Message = alreadyAborting(id, fmt.Sprintf("%s on device %s", d.Task.Tool, d.Serial))
			return structuredResult(ctx, none)
		}
		if d, place, ok := g.deviceQueued(ctx, id); ok {
			none.Message = leftQueueText(id, d, place)
			return structuredResult(ctx, none)
		}
		if serial != "" {
			return g.notOnDeviceAtAll(ctx, id, serial)
		}
		return g.refuseBadInput(ctx, fmt.Sprintf("no task has the id %s (none runs or waits with it, and no record of one is kept): "+
			"a task's id is the taskId in run_agent_task's answer, the [task …] note of a tool result, or in get_latest_task, "+
			"`corral tasks` and the console's device page", id))
	case err != nil:
		g.log.Warn("abort_task: task record not read", "task", id, "err", err)
		return structuredResult(ctx, none)
	case !g.mayUseSerial(ctx, rec.Serial): // its record is not the caller's to read
		return structuredResult(ctx, none)
	}
	none.Message = fmt.Sprintf("Task %s already ended: it %s at %s", id, endedAs(rec.Outcome), rec.Finished.UTC().Format(time.RFC3339))
	if rec.Error != "" {
		none.Message += " (" + rec.Error + ")"
	}
	none.Message += fmt.Sprintf("; nothing to abort. get_task_result {\"taskId\": %q} shows its record.", id)
	return structuredResult(ctx, none)
}

// endedAs puts a task's outcome in words: "it ..." succeeded, failed, was aborted, timed out,
// was refused, was lost.
func endedAs(outcome string) string {
	switch outcome {
	case broker.OutcomeAborted, broker.OutcomeRefused, broker.OutcomeLost:
		return "was " + outcome
	}
	return strings.ReplaceAll(outcome, "_", " ")
}
