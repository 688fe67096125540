package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// latestTaskArgs are get_latest_task's arguments: the phone-agent seed's includeSteps, and
// anyTool for the latest task of any tool rather than the latest agent task. Serial is the
// device HttpRunner's clients send with every call (unlisted: serialFilter): the latest task
// on it.
type latestTaskArgs struct {
	IncludeSteps *bool  `json:"includeSteps,omitempty"`
	AnyTool      *bool  `json:"anyTool,omitempty"`
	Serial       string `json:"serial,omitempty"`
}

func toolGetLatestTask() toolDef {
	tool := mcpgo.NewTool("get_latest_task",
		mcpgo.WithDescription("Get this session's latest agent task (run_agent_task; without a session: this client's), "+
			"steps and all, as get_task_result does."),
		readOnly(), mcpgo.WithOutputSchema[TaskRecordResult](),
		mcpgo.WithBoolean("includeSteps", mcpgo.Description("Include an agent task's or a sequence's steps (default true)")),
		mcpgo.WithBoolean("anyTool", mcpgo.Description("Any tool's, not only run_agent_task's (default false)")),
	)
	return toolDef{tool: tool, serialFilter: true, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a latestTaskArgs
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			anyTool := a.AnyTool != nil && *a.AnyTool
			who := latestOf(ctx)
			if a.Serial != "" { // checked as a device tool checks it: known, usable
				if _, _, errRes := g.resolveDevice(ctx, deviceArgs{Serial: a.Serial}); errRes != nil {
					return errRes, nil
				}
				who = latestOn(who, a.Serial)
			}
			if !anyTool {
				who = agentTaskOf(who) // the seed's: the latest agent task, which no other call moves
			}
			dropSteps := a.IncludeSteps != nil && !*a.IncludeSteps
			if out, ok := g.inFlightLatest(ctx, anyTool, a.Serial); ok { // no record, nor latest, before its answer
				return structuredResult(ctx, out.steps(dropSteps)), nil
			}
			id, ok := g.farm.LatestTask(ctx, who)
			if !ok {
				return noLatestTask(ctx, anyTool, a.Serial), nil
			}
			if out, ok := g.sentRunning(ctx, id); ok { // no record before its node answers
				return structuredResult(ctx, out.steps(dropSteps)), nil
			}
			rec, err := g.farm.PollTaskRecord(ctx, id)
			if err != nil {
				if out, ok := g.unrecordedShown(ctx, id); ok { // it runs, or waits for its device: no record yet
					return structuredResult(ctx, out.steps(dropSteps)), nil
				}
				return g.refuse(ctx, taskReadCode(err), noLatestRecordText(id, err)), nil
			}
			if !g.mayUseSerial(ctx, rec.Serial) { // a session id or holder name is no pass to another's devices
				p := g.principal(ctx)
				return g.deny(ctx, denial{reason: reasonDevice, serial: rec.Serial, rule: p.tagRule() + "; task " + id}, fmt.Sprintf("denied by policy: principal %q may not read task %s: it ran on device %s, outside its rule (%s)",
					p.Name, id, rec.Serial, p.tagRule())), nil
			}
			return structuredResult(ctx, taskRecord(rec).steps(dropSteps)), nil
		}
	}}
}

// runningShown is the record of task id while it runs (g.running) on a device that is not
// offline: what get_latest_task shows of the latest task before its record is written, and so
// what abort_task {} stops when the caller has no agent task of its own (latestAgentTask).
func (g *Gateway) runningShown(ctx context.Context, id string) (TaskRecordResult, bool) {
	out, d, ok := g.running(ctx, id)
	return out, ok && d.State != broker.StateOffline
}

// latestOf names whose latest task a call reads and writes: its protocol session's, else its
// holder's (principal and client name, not its Corral-Caller tag: each corral call process
// is a new caller, and the next one reads the latest), as the stateless revision has no session.
func latestOf(ctx context.Context) string {
	if s := mcpserver.ClientSessionFromContext(ctx); s != nil && s.SessionID() != "" {
		return "session:" + s.SessionID()
	}
	return "holder:" + holderFrom(ctx).Name()
}

// latestOn names whose latest task on device serial a call reads and writes: who's
// (latestOf), on that device only. The device comes first, as agentTaskOf's prefix does (the
// CLI's farm keeps what precedes the session: asHolder), as a token: no ':' in it.
func latestOn(who, serial string) string { return "device:" + broker.Token(serial) + ":" + who }

// LatestKeys are the keys rememberLatestID records a device call's task under, for who
// (latestOf) on device serial: the CLI writes them itself as its call's task reaches its node,
// so that another corral call finds it before the answer (cmd/corral: keepWhenStarted).
func LatestKeys(who, serial string) []string {
	if serial == "" {
		return []string{who}
	}
	return []string{who, latestOn(who, serial)}
}

// rememberLatest records a task the node answered (and so wrote a record of) as the latest of
// its caller. A failure to record costs only get_latest_task, so it is logged, not returned.
func (g *Gateway) rememberLatest(ctx context.Context, res broker.TaskResult) {
	if res.ID == "" || res.Submitted.IsZero() {
		return // refused before any node saw it: there is no record to find
	}
	g.rememberLatestID(ctx, res.ID, res.Serial)
}

// rememberLatestID records task id, on device serial, as the latest of its caller, and its
// latest on that device: one its node answered, or one whose caller stopped waiting, which its
// node withdraws or aborts and records as aborted (as get_task_result shows it).
func (g *Gateway) rememberLatestID(ctx context.Context, id, serial string) {
	// The caller may be gone already (cancelled); the task still ran. (SetLatestTask only
	// queues the write: no deadline needed, nor the timer one costs on every call.)
	ctx, who := context.WithoutCancel(ctx), latestOf(ctx)
	keys := []string{who} // as LatestKeys has them, without its allocation on every call
	if serial != "" {
		keys = append(keys, latestOn(who, serial))
	}
	for _, key := range keys {
		if err := g.farm.SetLatestTask(ctx, key, id); err != nil {
			g.log.Warn("latest task not recorded; get_latest_task will miss it", "task", id, "err", err)
			return
		}
	}
}

// dropSteps leaves out of a record the per-step results of its tool's result (an agent task's or
// a sequence's steps) and its text, which for an agent task is the report, steps and all.
func (r *TaskRecordResult) dropSteps() {
	r.Data, r.Text, r.Steps = withoutSteps(r.Data), "", nil
}

// withoutSteps drops the per-step results from a tool's result.
func withoutSteps(data any) any {
	raw, ok := data.(json.RawMessage)
	if !ok {
		return data
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return data
	}
	if _, ok := m["steps"]; !ok {
		return data
	}
	delete(m, "steps")
	b, err := json.Marshal(m)
	if err != nil {
		return data
	}
	return json.RawMessage(b)
}
