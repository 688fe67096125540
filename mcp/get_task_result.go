package mcp

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// TaskRecordResult is get_task_result's structured result: a task's record. Its error is null
// when nothing went wrong, as in the phone-agent seed's task JSON.
type TaskRecordResult struct {
	TaskID     string    `json:"taskId" jsonschema:"Task id"`
	Serial     string    `json:"serial" jsonschema:"Device the task ran on"`
	Node       string    `json:"node,omitempty" jsonschema:"Edge node that ran it"`
	Tool       string    `json:"tool" jsonschema:"Tool the task ran"`
	Holder     string    `json:"holder,omitempty" jsonschema:"Who asked for it"`
	Status     string    `json:"status" jsonschema:"An agent task's: planning, executing, finished, failed, aborted; else the outcome"`
	Outcome    string    `json:"outcome" jsonschema:"succeeded, failed, aborted, timed_out, refused, lost, running, or none (no task)"`
	Code       string    `json:"code,omitempty" jsonschema:"Failure or refusal code (busy, bad_input, ...)"`
	Error      *string   `json:"error" jsonschema:"What went wrong, or null"`
	AbortedBy  string    `json:"abortedBy,omitempty" jsonschema:"Who aborted it"`
	Submitted  time.Time `json:"submitted,omitzero" jsonschema:"When it was submitted"`
	Started    time.Time `json:"started,omitzero" jsonschema:"When it started (absent if it never ran)"`
	Finished   time.Time `json:"finished,omitzero" jsonschema:"When it ended"`
	DurationMS int64     `json:"durationMs" jsonschema:"Running time (ms; 0 if it never ran)"`
	// An agent task's, at the top level as in the phone-agent seed's get_task_result (so far,
	// while it runs).
	Goal           string `json:"goal,omitempty"`
	Conclusion     string `json:"conclusion,omitempty"`
	StepsCompleted *int   `json:"stepsCompleted,omitempty"`
	TotalSteps     *int   `json:"totalSteps,omitempty"`
	Steps          any    `json:"steps,omitempty" jsonschema:"Agent steps"`
	Data           any    `json:"data,omitempty" jsonschema:"The tool's structured result"`
	Text           string `json:"text,omitempty" jsonschema:"The tool's text result"`
	// Message says why get_latest_task has no task to show (status none).
	Message string `json:"message,omitempty" jsonschema:"Why no task (status none)"`
}

func toolGetTaskResult() toolDef {
	tool := mcpgo.NewTool("get_task_result",
		mcpgo.WithDescription("Get the record of a finished task by its id: device, tool, outcome, error, timings and the tool's result."),
		readOnly(), mcpgo.WithOutputSchema[TaskRecordResult](),
		mcpgo.WithString("task_id", mcpgo.MaxLength(128), mcpgo.Description("Task id (taskId is accepted too)")),
		mcpgo.WithString("taskId", mcpgo.MaxLength(128), mcpgo.Description("Same as task_id (phone-agent spelling)")),
		mcpgo.WithBoolean("includeSteps", mcpgo.Description("Include an agent task's or a sequence's steps (default true)")),
		mcpgo.WithNumber("screenshotsOfStep", mcpgo.Min(1), mcpgo.Description("Attach the screens an agent task's step N began and ended on, as images")),
		mcpgo.WithBoolean("markedScreenshots", mcpgo.Description("Attach the marked screens its gestures acted on (pre_mark_operation)")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a struct {
				taskIDArgs
				IncludeSteps *bool `json:"includeSteps,omitempty"`
				ShotsOfStep  int   `json:"screenshotsOfStep,omitempty"`
				Marked       bool  `json:"markedScreenshots,omitempty"`
			}
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			id, err := a.id()
			switch {
			case err != nil:
				return g.refuseErr(ctx, err), nil
			case id == "":
				return g.refuseBadInput(ctx, "task_id is required: the id in a tool result's [task …] note or in abort_task's answer"), nil
			}
			dropSteps := a.IncludeSteps != nil && !*a.IncludeSteps
			if out, ok := g.sentRunning(ctx, id); ok { // no record before its node answers
				return structuredResult(ctx, out.steps(dropSteps)), nil
			}
			rec, err := g.farm.PollTaskRecord(ctx, id)
			if err != nil {
				out, d, ok := g.running(ctx, id)
				if ok && d.State != broker.StateOffline {
					return structuredResult(ctx, out.steps(dropSteps)), nil
				}
				switch {
				case ok: // its node is gone: nothing says the task runs on
					return g.refuse(ctx, broker.CodeNodeLost, orphanText(id, d)), nil
				case !errors.Is(err, broker.ErrNotFound):
					return g.refuse(ctx, codeUnavailable, fmt.Sprintf("no record of task %s: %v", id, err)), nil
				}
				if q, place, queued := g.deviceQueued(ctx, id); queued { // not run yet
					return g.refuse(ctx, queuedCode(q), queuedText(id, q, place)), nil
				}
				return g.refuse(ctx, codeUnknownTask, noRecordText(id)+sitesDownNote(g.farm.SitesDown())), nil
			}
			if !g.mayUseSerial(ctx, rec.Serial) {
				p := g.principal(ctx)
				return g.deny(ctx, denial{reason: reasonDevice, serial: rec.Serial, rule: p.tagRule() + "; task " + id}, fmt.Sprintf("denied by policy: principal %q may not read task %s: it ran on a device outside its rule (%s); get_latest_task shows its own latest task",
					p.Name, id, p.tagRule())), nil
			}
			var images []mcpgo.Content
			if a.ShotsOfStep > 0 {
				if images, err = g.stepScreenshots(ctx, rec, a.ShotsOfStep); err != nil {
					return g.refuseErr(ctx, err), nil
				}
			}
			if a.Marked {
				marked, err := g.markedScreenshots(ctx, rec)
				if err != nil {
					return g.refuseErr(ctx, err), nil
				}
				images = append(images, marked...)
			}
			res := structuredResult(ctx, taskRecord(rec).steps(dropSteps))
			res.Content = append(res.Content, images...)
			return res, nil
		}
	}}
}

// deviceRunning is the device whose registry entry shows task id running (it has no record
// yet), if the caller may see it.
func (g *Gateway) deviceRunning(ctx context.Context, id string) (broker.DeviceEntry, bool) {
	for _, d := range g.farm.Devices() {
		if t := d.Task; t != nil && t.ID == id && g.mayUseSerial(ctx, d.Serial) {
			return d, true
		}
	}
	return broker.DeviceEntry{}, false
}

// runningTask is what the registry tells of a task still running: its device, tool and
// start, status "running".
func runningTask(d broker.DeviceEntry) TaskRecordResult {
	t := d.Task
	return TaskRecordResult{TaskID: t.ID, Serial: d.Serial, Node: d.Node, Tool: t.Tool, Status: "running", Outcome: "running",
		Started: t.Started, DurationMS: runningFor(t.Started)}
}

// runningFor is how long a task started at started has run so far, in milliseconds.
func runningFor(started time.Time) int64 {
	if started.IsZero() {
		return 0
	}
	return max(time.Since(started).Milliseconds(), 0)
}

// sentRunning is the record of task id while it runs, if this gateway sent it and has not had
// its answer, on a device that is not offline: its node records it only after it answers, so
// there is no record to read yet (a poll of it reads no store).
func (g *Gateway) sentRunning(ctx context.Context, id string) (TaskRecordResult, bool) {
	if _, sent := g.agents.byID(id); !sent {
		return TaskRecordResult{}, false
	}
	return g.runningShown(ctx, id)
}

// steps is r without its steps when drop says so (includeSteps: false).
func (r TaskRecordResult) steps(drop bool) TaskRecordResult {
	if drop {
		r.dropSteps()
	}
	return r
}

// running is the record of task id while it runs, if this gateway sent it (an agent task: its
// goal, the seed's status and its steps so far, which its progress told) or the registry shows
// it running: ok false when neither knows it (it ended, or never was).
func (g *Gateway) running(ctx context.Context, id string) (out TaskRecordResult, d broker.DeviceEntry, ok bool) {
	r, sent := g.agents.byID(id)
	if sent && !g.mayUseSerial(ctx, r.serial) {
		sent = false
	}
	d, shown := g.deviceRunning(ctx, id)
	switch {
	case sent:
		dev, _ := g.farm.Device(r.serial)
		if dev.Task == nil || dev.Task.ID != id { // the registry has not caught up
			dev.Task = &broker.RunningTask{ID: id, Tool: r.tool, Started: r.started}
		}
		out = TaskRecordResult{TaskID: id, Serial: r.serial, Node: dev.Node, Tool: r.tool, Status: "running", Outcome: "running",
			Started: r.started, Goal: r.goal}
		if shown {
			out.Started = d.Task.Started
		}
		out.DurationMS = runningFor(out.Started)
		r.progress.fill(&out)
		return out, dev, true
	case shown:
		return runningTask(d), d, true
	}
	return out, d, false
}

// taskRecord maps a task's record to get_task_result's result; an agent task's carries the
// seed's fields at the top level too.
func taskRecord(r broker.TaskResult) TaskRecordResult {
	out := TaskRecordResult{TaskID: r.ID, Serial: r.Serial, Node: r.Node, Tool: r.Tool, Holder: r.Holder.String(),
		Status: r.Outcome, Outcome: r.Outcome, Code: r.Code, Error: nullIfEmpty(r.Error), AbortedBy: r.AbortedBy,
		Submitted: r.Submitted, Started: r.Started, Finished: r.Finished, Text: r.Text}
	if !r.Started.IsZero() && r.Finished.After(r.Started) {
		out.DurationMS = r.Finished.Sub(r.Started).Milliseconds()
	}
	if len(r.Data) > 0 && json.Valid(r.Data) {
		out.Data = json.RawMessage(r.Data)
	}
	if isBackground(r.Tool) {
		out.seedFields(r)
	}
	return out
}

// seedFields puts an agent task's goal, conclusion, steps and the seed's status at the top
// level of its record, as the phone-agent seed's get_task_result has them.
func (out *TaskRecordResult) seedFields(r broker.TaskResult) {
	var data struct {
		Goal           string          `json:"goal"`
		Status         string          `json:"status"`
		Conclusion     string          `json:"conclusion"`
		StepsCompleted *int            `json:"stepsCompleted"`
		TotalSteps     *int            `json:"totalSteps"`
		Steps          json.RawMessage `json:"steps"`
	}
	_ = json.Unmarshal(r.Data, &data) // a record without a result (refused, lost) has none
	out.Goal, out.Conclusion = data.Goal, data.Conclusion
	out.Status = seedStatus(data.Status, r.Outcome)
	zero := 0
	out.StepsCompleted, out.TotalSteps = cmp.Or(data.StepsCompleted, &zero), cmp.Or(data.TotalSteps, &zero)
	out.Steps = []any{}
	if len(data.Steps) > 0 {
		out.Steps = stepsWithError(data.Steps)
	}
}

// seedStatus is an ended agent task's status in the seed's state machine (finished, failed or
// aborted): its node's word, else its outcome's (timing out is aborting, in the seed).
func seedStatus(node, outcome string) string {
	switch node {
	case "finished", "failed", "aborted":
		return node
	}
	switch outcome {
	case broker.OutcomeSucceeded:
		return "finished"
	case broker.OutcomeAborted, broker.OutcomeTimedOut:
		return "aborted"
	}
	return "failed"
}

// stepScreenshots are the screens step n of an agent task's record began and ended on, each
// as a caption and a JPEG image.
func (g *Gateway) stepScreenshots(ctx context.Context, rec broker.TaskResult, n int) ([]mcpgo.Content, error) {
	var data struct {
		Steps []struct {
			Before string `json:"beforeScreenshot"`
			After  string `json:"afterScreenshot"`
		} `json:"steps"`
	}
	if json.Unmarshal(rec.Data, &data) != nil || len(data.Steps) == 0 {
		if rec.Tool == "run_agent_task" {
			return nil, fmt.Errorf("task %s (run_agent_task) has no steps, so no step screenshots: it ended before it had a plan", rec.ID)
		}
		return nil, fmt.Errorf("task %s (%s) has no steps with screenshots: only run_agent_task keeps them (ai_action keeps none)", rec.ID, rec.Tool)
	}
	if n > len(data.Steps) {
		steps := "steps"
		if len(data.Steps) == 1 {
			steps = "step"
		}
		return nil, fmt.Errorf("screenshotsOfStep %d: task %s has %d %s", n, rec.ID, len(data.Steps), steps)
	}
	s := data.Steps[n-1]
	var out []mcpgo.Content
	for _, shot := range []struct{ which, name string }{{"began", s.Before}, {"ended", s.After}} {
		if shot.name == "" {
			out = append(out, mcpgo.NewTextContent(fmt.Sprintf("Step %d %s on a screen that was not kept (the node could not save it, or keeps no screenshots).", n, shot.which)))
			continue
		}
		shown, err := g.screenshotContent(ctx, rec, shot.name, fmt.Sprintf("Step %d %s on", n, shot.which))
		if err != nil {
			return nil, err
		}
		out = append(out, shown...)
	}
	return out, nil
}

// markedScreenshots are the screens the gestures of a task's record acted on, marked
// (pre_mark_operation), each as a caption and a JPEG image.
func (g *Gateway) markedScreenshots(ctx context.Context, rec broker.TaskResult) ([]mcpgo.Content, error) {
	var data struct {
		Marked []string `json:"markedScreenshots"`
	}
	if json.Unmarshal(rec.Data, &data) != nil || len(data.Marked) == 0 {
		return nil, fmt.Errorf("task %s (%s) kept no marked screens: call an action tool with pre_mark_operation: true "+
			"(a failed task keeps none, nor a gesture-less one such as input or app_launch)", rec.ID, rec.Tool)
	}
	var out []mcpgo.Content
	for i, name := range data.Marked {
		shown, err := g.screenshotContent(ctx, rec, name, fmt.Sprintf("Gesture %d of %d of %s acted on", i+1, len(data.Marked), rec.Tool))
		if err != nil {
			return nil, err
		}
		out = append(out, shown...)
	}
	return out, nil
}

// screenshotContent is the screenshot a task's record names, as a caption ("{what} this
// screen:") and a JPEG image; a caption saying why when it cannot be read.
func (g *Gateway) screenshotContent(ctx context.Context, rec broker.TaskResult, name, what string) ([]mcpgo.Content, error) {
	// A record names its own task's screenshots; the digest in the name checks the image.
	if !broker.ScreenshotOfTask(name, rec.ID) {
		return nil, fmt.Errorf("task %s names a screenshot of another task (%s): its record is not to be trusted", rec.ID, name)
	}
	jpeg, err := g.farm.Screenshot(ctx, name)
	if err != nil {
		return []mcpgo.Content{mcpgo.NewTextContent(fmt.Sprintf("%s a screenshot that cannot be read: %v", what, err))}, nil
	}
	return []mcpgo.Content{mcpgo.NewTextContent(what + " this screen:"),
		mcpgo.NewImageContent(base64.StdEncoding.EncodeToString(jpeg), "image/jpeg")}, nil
}
