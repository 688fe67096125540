package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// runBackground runs a background tool's task (run_agent_task): one at a time per device, as
// the phone-agent seed's agent, and to its end whatever becomes of its caller. asked is the lease
// handle the caller gave (a group's, when task.Lease is its member's).
func (g *Gateway) runBackground(ctx context.Context, req mcpgo.CallToolRequest, spec tools.Tool, dev broker.DeviceEntry, task broker.TaskRequest, asked string) *mcpgo.CallToolResult {
	return g.sendBackground(ctx, req, spec, dev, task, asked, false)
}

// sendBackground is runBackground; firstEnded says the device's node answered that the agent
// task this gateway still knows running there has ended (askedAgain): task goes as asked.
func (g *Gateway) sendBackground(ctx context.Context, req mcpgo.CallToolRequest, spec tools.Tool, dev broker.DeviceEntry, task broker.TaskRequest, asked string, firstEnded bool) *mcpgo.CallToolResult {
	var a backgroundArgs
	_ = json.Unmarshal(task.Args, &a)
	run := agentRun{id: task.ID, serial: dev.Serial, tool: task.Tool, who: latestOf(ctx), holder: holderFrom(ctx), started: time.Now(),
		goal: a.Goal, progress: newAgentProgress()}
	other, reserved := g.agents.reserve(run)
	asAsked := task
	if !reserved && !firstEnded {
		if !startedOn(g.farm, dev.Serial, other.id) { // on its way: its node could not tell
			return g.refuse(ctx, broker.CodeBusy, alreadyRunning(dev.Serial, other.tool, other.id, other.started))
		}
		// Its node refuses this one, as it does another gateway's, and counts and records the
		// refusal (corral_tasks_total{outcome="refused"}): without a lease or a wait it cannot
		// queue behind the running task (under its holder's lease it would). Had that one just
		// ended, this one runs, untracked here as another gateway's would be; or, the device
		// being leased, it is refused busy: the holder's own is then sent again under its
		// lease (askedAgain).
		task.Lease, task.WaitMS = "", 0
	}
	done, errRes := g.admitCall(ctx, dev.Serial, task.Lease)
	if errRes != nil {
		g.agents.end(run)
		return errRes
	}
	unstarted := func() {}
	if reserved { // a refused one stays out of the session's latest
		unstarted = g.rememberAgentTask(ctx, run)
	}
	answered := func(res broker.TaskResult) {
		done()
		g.agents.end(run)
		if !reachedNode(res) || refusedAsRunning(res) {
			unstarted() // no record of it will be kept, or it did not start: the latest is the one before
		}
	} // when the node answers, not when the caller leaves
	task.Progress = true // the gateway reads the agent's progress for get_task_result while it runs
	if !waits(task.Args) {
		res, ended, err := g.startDetached(ctx, task, run, answered)
		if ended { // refused at once (no model): as the waiting form is
			if again, ok := askedAgain(asAsked, task, res, err); ok {
				return g.sendBackground(ctx, req, spec, dev, again, asked, true)
			}
			return g.backgroundAnswer(ctx, dev, task, asked, res, err)
		}
		return g.startedAnswer(ctx, dev.Serial, task, run)
	}
	res, err := g.outliveCaller(ctx, task, run.tracking(g.progressSink(ctx, req, spec.Progress)), answered)
	if again, ok := askedAgain(asAsked, task, res, err); ok {
		return g.sendBackground(ctx, req, spec, dev, again, asked, true)
	}
	return g.backgroundAnswer(ctx, dev, task, asked, res, err)
}

// askedAgain is the task its caller asked for, under a new id (the node keeps a record of the
// refused one), when it was sent without the lease its caller gave, the gateway still knowing
// the device's first agent task running, and its node refused it busy with no agent task
// running: the first ended meanwhile and the device is leased, to the caller as a rule, whose
// own task, sent without its lease, the node refuses naming the caller as holder. Sent under
// the lease, it runs, or waits behind its holder's running task as the holder's tasks do, or
// is refused as any call with a lease not the device's. That refusal without the lease stays
// in the node's count of refused tasks.
func askedAgain(asked, sent broker.TaskRequest, res broker.TaskResult, err error) (broker.TaskRequest, bool) {
	if asked.Lease == "" || sent.Lease != "" || err != nil || res.Code != broker.CodeBusy || refusedAsRunning(res) {
		return broker.TaskRequest{}, false
	}
	asked.ID = broker.NewTaskID()
	return asked, true
}

// backgroundAnswer is the caller's answer when a background task's node answered.
func (g *Gateway) backgroundAnswer(ctx context.Context, dev broker.DeviceEntry, task broker.TaskRequest, asked string, res broker.TaskResult, err error) *mcpgo.CallToolResult {
	if err == nil {
		if r := res.Lease; refusedAsRunning(res) {
			// another gateway's (or this one's before a restart): its node refused this one
			return g.refuse(ctx, broker.CodeBusy, alreadyRunning(dev.Serial, r.Running.Tool, r.Running.ID, r.Running.Started))
		}
		res.Data, _ = withNullError(res.Data) // the seed's "error": null, which the node's JSON leaves out
	}
	return g.taskAnswer(ctx, dev, task, g.inGroupWords(ctx, asked, task, res), err) // a failure carries its report (toolResult)
}

// startedOn says whether the registry of farm shows task id running on device serial: its
// node has it.
func startedOn(farm Farm, serial, id string) bool {
	d, ok := farm.Device(serial)
	return ok && d.Task != nil && d.Task.ID == id
}

// refusedAsRunning says whether a background task's node refused it because another one runs
// on the device.
func refusedAsRunning(res broker.TaskResult) bool {
	r := res.Lease
	return res.Code == broker.CodeBusy && r != nil && r.Running != nil && isBackground(r.Running.Tool)
}

// tracking returns a progress sink that tells r's progress what the task reports, then
// passes it on to sink (nil: to no one).
func (r agentRun) tracking(sink func(broker.Progress)) func(broker.Progress) {
	return func(p broker.Progress) {
		r.progress.saw(p.Message)
		if sink != nil {
			sink(p)
		}
	}
}

// alreadyRunning is the refusal of a second background task on a device, in the phone-agent
// seed's words, naming the running task (id) as the device's node does.
func alreadyRunning(serial, tool, id string, started time.Time) string {
	msg := fmt.Sprintf("Agent is already running. Please wait or call abort_task first. (device %s runs %s", serial, tool)
	if id != "" {
		msg += " task " + id
	}
	msg += " since " + started.UTC().Format(time.RFC3339)
	if id != "" {
		msg += fmt.Sprintf("; abort_task {\"taskId\": %q} stops it, get_task_result {\"taskId\": %q} reads it once it ends", id, id)
	}
	return msg + ")"
}

func isBackground(tool string) bool {
	spec, ok := tools.Lookup(tool)
	return ok && spec.Background
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

// defaultDetachedWait is how long a task started without waiting is watched before its caller
// hears that it runs (agentRuns.detachedWait): its node refuses one it cannot run (no model) at
// once, and reports progress as soon as it starts one; a task queued behind another on its
// device sends neither.
const defaultDetachedWait = 2 * time.Second

// startDetached submits task, to run to its end on its node whatever becomes of the caller
// (get_task_result reads its record then), and waits until it starts: its first progress, or
// the agents' detachedWait. ended says its node answered before that (it refused the task, or
// could not be reached): res and err are then its answer. done is called when the node answers.
func (g *Gateway) startDetached(ctx context.Context, task broker.TaskRequest, run agentRun, done func(broker.TaskResult)) (res broker.TaskResult, ended bool, err error) {
	type answer struct {
		res broker.TaskResult
		err error
	}
	ch, started := make(chan answer, 1), make(chan struct{})
	var once sync.Once
	bg := context.WithoutCancel(ctx)
	go func() {
		res, err := g.farm.Run(bg, task, run.tracking(func(broker.Progress) { once.Do(func() { close(started) }) }))
		answered := res
		if err != nil {
			g.log.Warn("task started without waiting: no answer from its node", "task", task.ID, "tool", task.Tool, "err", err)
			answered = broker.TaskResult{Submitted: time.Now()} // its node may have it: the latest stays this task
		}
		done(answered)
		ch <- answer{res, err}
	}()
	wait := time.NewTimer(g.agents.detachedWait)
	defer wait.Stop()
	select {
	case a := <-ch:
		return a.res, true, a.err
	case <-started:
	case <-wait.C:
	case <-ctx.Done():
	}
	return broker.TaskResult{}, false, nil
}

// errCallerLeft is the answer to a caller who left while its background task runs on.
var errCallerLeft = errors.New("the caller left; the agent task runs on to its end (get_task_result reads it then; abort_task stops it)")

// outliveCaller runs a background task (an agent task) that outlives its caller: a caller that
// disconnects (or cancels its call) leaves it running to its end on its node, as the seed's
// tasks do; only abort_task stops it. done is called when the node answers (with a result
// that reached a node when there was no answer: the node may have the task).
func (g *Gateway) outliveCaller(ctx context.Context, task broker.TaskRequest, progress func(broker.Progress), done func(broker.TaskResult)) (broker.TaskResult, error) {
	type answer struct {
		res broker.TaskResult
		err error
	}
	ch := make(chan answer, 1)
	bg := context.WithoutCancel(ctx)
	go func() {
		res, err := g.farm.Run(bg, task, progress)
		answered := res
		if err != nil {
			answered.Submitted = time.Now()
		}
		done(answered) // before the caller hears: its next agent task must find the device free
		ch <- answer{res, err}
	}()
	select {
	case a := <-ch:
		return a.res, a.err
	case <-ctx.Done():
		return broker.TaskResult{}, errCallerLeft
	}
}
