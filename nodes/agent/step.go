package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/agent/model"
)

const (
	// maxResultRunes bounds a tool's result in the conversation and the records.
	maxResultRunes = 4000
	// eventRunes bounds a result or arguments in a progress line, as the seed cuts them.
	eventRunes = 300
	// maxBadTurns is how many turns in a row may bring only calls that cannot run (unknown
	// tools, broken arguments) before the step fails.
	maxBadTurns = 3
)

// stepEnd is how the model ended a step.
type stepEnd struct {
	success  bool
	summary  string
	finished bool // the whole goal is met
}

// step resolves step i: turns of observe, ask, act until the model ends it. finished says
// the model ended the whole task.
func (r *runner) step(ctx context.Context, i int) (finished bool, err error) {
	t := r.task
	s := &t.Steps[i]
	s.Status = StepRunning
	start := r.now()
	line := fmt.Sprintf("▶️ Step %d: %s", s.Index, s.Title)
	if s.Description != "" {
		line += " — " + oneLine(s.Description)
	}
	r.emit(EventStepStart, s.Index, "%s", line)
	defer func() { r.settle(ctx, s, start, err) }()

	obs, err := r.observe(ctx)
	if err != nil {
		return false, err
	}
	s.Before, s.After, r.lastObs = obs.JPEG, obs.JPEG, obs
	c := newConversation(stepPrompt, r.o.Budget.KeepImages)
	c.screen(recap(t.Goal, t.Steps, r.summaries, i), obs)
	texts, bad := 0, 0
	for {
		resp, err := r.chat(ctx, s.Index, c, r.tools)
		if err != nil {
			return false, err
		}
		if len(resp.ToolCalls) == 0 {
			// Text alone: nudge once, then give up on the step.
			if texts++; texts >= 2 {
				return false, failed(failNoToolCall, fmt.Errorf("step %d: the model answered without calling a tool, twice (%q): use a model that calls tools%s",
					s.Index, cut(oneLine(resp.Text), 120), r.noToolsHint(resp)))
			}
			c.replay(resp)
			c.user("Call a tool: act on the phone with one of the device tools, or end the step with step_done.")
			continue
		}
		texts = 0
		if text := strings.TrimSpace(resp.Text); text != "" && !r.live {
			r.emit(EventThinking, s.Index, "💭 %s", cut(oneLine(text), eventRunes))
		}
		c.replay(resp)
		acted, last, end, err := r.calls(ctx, s, c, resp.ToolCalls)
		if err != nil {
			return false, err
		}
		if acted {
			before := obs
			if obs, err = r.observe(ctx); err != nil {
				return false, err
			}
			s.After, r.lastObs = obs.JPEG, obs
			if last >= 0 {
				t.Actions[last].ExpectText = newLabel(before.Elements, obs.Elements)
			}
		}
		if end != nil {
			return r.ended(s, end)
		}
		if acted {
			bad = 0
			c.screen("The screen after your actions.", obs)
		} else if bad++; bad >= maxBadTurns && resp.FinishReason == model.FinishLength {
			return false, failed(failWrongCalls, fmt.Errorf("step %d: the model's tool calls were %s, %d turns in a row: %s",
				s.Index, cutShort, bad, model.LengthHint))
		} else if bad >= maxBadTurns {
			return false, failed(failWrongCalls, fmt.Errorf("step %d: the model called tools wrongly %d turns in a row (see the step's tool calls): use a model that follows tool schemas",
				s.Index, bad))
		}
	}
}

// calls runs one answer's tool calls in order. acted says a device call ran; last is the
// index in Task.Actions of the last one that succeeded (-1: none); end is set when the
// model ended the step (calls after that are not run). An error ends the task.
func (r *runner) calls(ctx context.Context, s *Step, c *conversation, calls []model.ToolCall) (acted bool, last int, end *stepEnd, err error) {
	last = -1
	for _, call := range calls {
		rec := ToolCall{Name: call.Name, Args: jsonArgs(call.Arguments)}
		switch {
		case end != nil:
			c.result(call.ID, "not run: the step had already ended")
			continue
		case call.Name == toolStepDone:
			ok, summary, perr := parseStepDone(call.Arguments)
			if perr == nil {
				end = &stepEnd{success: ok, summary: summary}
				rec.Result = "step " + StepFailed
				if ok {
					rec.Result = "step " + StepSuccess
				}
			}
			rec.Error = errText(perr)
		case call.Name == toolFinished:
			content, perr := parseFinished(call.Arguments)
			if perr == nil {
				end = &stepEnd{success: true, summary: content, finished: true}
				rec.Result = "task finished"
			}
			rec.Error = errText(perr)
		case r.device[call.Name]:
			n := len(r.task.Actions)
			ran, err := r.act(ctx, s, c, call)
			acted = acted || ran
			if len(r.task.Actions) > n {
				last = n
			}
			if err != nil {
				return acted, last, nil, err
			}
			continue
		default:
			rec.Error = fmt.Sprintf("there is no tool %q: use one of the tools offered", cut(call.Name, 64))
		}
		s.ToolCalls = append(s.ToolCalls, rec)
		if rec.Error != "" {
			c.result(call.ID, "error: "+rec.Error)
		} else {
			c.result(call.ID, rec.Result)
		}
	}
	return acted, last, end, nil
}

// act runs one device call, if the budget and the loop detector let it. ran says the device
// was called.
func (r *runner) act(ctx context.Context, s *Step, c *conversation, call model.ToolCall) (ran bool, err error) {
	rec := ToolCall{Name: call.Name, Args: jsonArgs(call.Arguments)}
	if !isObject(call.Arguments) {
		rec.Error = "the arguments are not a JSON object"
		s.ToolCalls = append(s.ToolCalls, rec)
		c.result(call.ID, "error: "+rec.Error+": call it again with an object of its parameters")
		return false, nil
	}
	args, screen := canonical(call.Arguments), screenKey(r.lastObs)
	if err := r.guard.action(call.Name, args, screen); err != nil {
		rec.Error = "not run: " + err.Error()
		s.ToolCalls = append(s.ToolCalls, rec)
		return false, err
	}
	r.emitLogged(EventToolCall, s.Index, []any{"tool", call.Name, "args", argNames(call.Arguments)},
		"🔧 %s(%s)", call.Name, cut(string(rec.Args), eventRunes))
	start := r.now()
	res, err := r.o.Device.Call(ctx, call.Name, call.Arguments)
	end := r.now()
	rec.DurationMS = ms(end.Sub(start))
	if err != nil {
		rec.Error = cut(err.Error(), maxResultRunes)
		r.emit(EventToolResult, s.Index, "→ error: %s", cut(oneLine(rec.Error), eventRunes))
		c.result(call.ID, "error: "+rec.Error)
		switch {
		case errors.Is(err, ErrBadArguments) && ctx.Err() == nil:
			// Refused, nothing done: a wrong call (the step's bad turns count it), not an action.
			r.guard.refund(call.Name, args, screen)
			s.ToolCalls = append(s.ToolCalls, rec)
			return false, nil
		case errors.Is(err, ErrDeviceFailed) && ctx.Err() == nil:
			// The device, not the model: no other call helps until a person or a retry sees to it.
			s.ToolCalls = append(s.ToolCalls, rec)
			return true, failed(failDevice, fmt.Errorf("step %d: %s failed on the device: %w", s.Index, call.Name, err))
		}
	} else {
		rec.Result = cut(res, maxResultRunes)
		r.emit(EventToolResult, s.Index, "→ %s", cut(oneLine(res), eventRunes))
		c.result(call.ID, rec.Result)
		r.record(s.Index, call, start, end)
	}
	s.ToolCalls = append(s.ToolCalls, rec)
	return true, ctx.Err()
}

// record adds a successful device call, which ran from start to end, to the actions a test
// would replay. Its wait is from the previous action's end, not its start: a replay runs that
// action whole (a sleep_ms sleeps) before it waits, so a wait from its start counted it twice.
func (r *runner) record(step int, call model.ToolCall, start, end time.Time) {
	var wait int64
	if len(r.task.Actions) > 0 {
		wait = ms(start.Sub(r.last))
	}
	r.last = end
	r.task.Actions = append(r.task.Actions, Action{Step: step, Tool: call.Name, Args: jsonArgs(call.Arguments), WaitMS: wait})
}

// ended closes a step the model ended.
func (r *runner) ended(s *Step, end *stepEnd) (bool, error) {
	r.summaries[s.Index-1] = end.summary
	if !end.success {
		s.Error = end.summary
		if s.Error == "" {
			s.Error = "the model gave up on the step without saying why"
		}
		return false, failed(failStep, fmt.Errorf("step %d (%s) failed: %s", s.Index, s.Title, s.Error))
	}
	s.Status = StepSuccess
	if end.finished {
		r.task.Conclusion = end.summary
		if r.task.Conclusion == "" {
			r.task.Conclusion = r.lastSummary()
		}
	}
	return end.finished, nil
}

// settle records how step s ended and reports it.
func (r *runner) settle(ctx context.Context, s *Step, start time.Time, err error) {
	s.DurationMS = ms(r.now().Sub(start))
	if err != nil {
		s.Status = StepFailed
		if ctx.Err() != nil {
			s.Error = r.abortReason(ctx, err)
		} else if s.Error == "" {
			s.Error = err.Error()
		}
	}
	icon := "✅"
	if s.Status != StepSuccess {
		icon = "❌"
	}
	r.emit(EventStepEnd, s.Index, "%s Step %d done (%s, %.1fs)", icon, s.Index, s.Status, float64(s.DurationMS)/1000)
}

// lastSummary is what the latest step that said anything found.
func (r *runner) lastSummary() string {
	for i := len(r.summaries) - 1; i >= 0; i-- {
		if r.summaries[i] != "" {
			return r.summaries[i]
		}
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
