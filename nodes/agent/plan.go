package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// plan asks the model for the plan, once more with a correction if its first answer is no
// usable plan, and sets the task's steps. A model that finds the goal already met on the
// screen may call finished instead: done then says the task ended with its conclusion.
func (r *runner) plan(ctx context.Context) (done bool, err error) {
	obs, err := r.observe(ctx)
	if err != nil {
		return false, fmt.Errorf("planning: %w", err)
	}
	r.lastObs = obs
	maxSteps := r.o.Budget.MaxSteps
	c := newConversation(planPrompt(maxSteps), r.o.Budget.KeepImages)
	c.screen("The user's goal: "+r.o.Goal, obs)
	tools := []model.Tool{planTool(maxSteps), finishedTool}
	var (
		why  error
		resp model.Response
	)
	for attempt := 0; attempt < 2; attempt++ {
		resp, err = r.chat(ctx, 0, c, tools)
		if err != nil {
			return false, fmt.Errorf("planning: %w", err)
		}
		var steps []planStep
		if steps, why = readPlan(resp, maxSteps); why == nil {
			r.setPlan(steps)
			return false, nil
		}
		if conclusion, ok := finishedAtOnce(resp); ok {
			r.finishAtOnce(conclusion)
			return true, nil
		}
		// What kind of answer it was, not its words: they may repeat the goal.
		r.log.Info("no usable plan", "attempt", attempt+1, "why", kindOf(why), "tool_calls", len(resp.ToolCalls), "text_runes", runes(resp.Text))
		c.replay(resp) // clipped: a junk answer is not sent back whole
		for _, call := range resp.ToolCalls {
			c.result(call.ID, "error: "+why.Error())
		}
		c.user(fmt.Sprintf(`That was no usable plan: %v. Call the function plan with {"steps":[{"title":"...","description":"..."}]}, %s; `+
			`or, if the screen shows the goal already met, call finished with {"content":"..."}.`, why, upToSteps(maxSteps, "")))
	}
	if resp.FinishReason == model.FinishLength && len(resp.ToolCalls) > 0 {
		return false, failed(failNoPlan, fmt.Errorf("planning: the model made no usable plan, twice (%w): its answer was %s: %s", why, cutShort, model.LengthHint))
	}
	return false, failed(failNoPlan, fmt.Errorf("planning: the model made no usable plan, twice (%w): try a model that calls tools, or a simpler goal%s", why, r.noToolsHint(resp)))
}

// finishedAtOnce is the conclusion of an answer that ended the task instead of planning: a
// finished call with its content (one without is no conclusion, and readPlan says why).
func finishedAtOnce(resp model.Response) (string, bool) {
	for _, call := range resp.ToolCalls {
		if call.Name == toolFinished {
			content, err := parseFinished(call.Arguments)
			return content, err == nil
		}
	}
	return "", false
}

// finishAtOnce ends the task without a plan: the goal was met before any step.
func (r *runner) finishAtOnce(conclusion string) {
	r.task.Conclusion = conclusion
	r.summaries = []string{}
	r.emit(EventPlanned, 0, "📋 No plan needed: the goal is already met: %s", cut(oneLine(conclusion), eventRunes))
}

// What was wrong with an answer that brought no plan, as the log names it.
const (
	planBad       = "bad_plan"         // plan called with arguments that are no plan
	planFinished  = "finished_wrongly" // finished called without its content
	planOtherTool = "other_tool"
	planText      = "text"
	planNothing   = "nothing"
)

// readPlan finds the plan in an answer, or says what is wrong with it (with its kind).
func readPlan(resp model.Response, maxSteps int) ([]planStep, error) {
	for _, call := range resp.ToolCalls {
		if call.Name == toolPlan {
			steps, err := parsePlan(call.Arguments, maxSteps)
			return steps, failed(planBad, err)
		}
	}
	for _, call := range resp.ToolCalls {
		if call.Name == toolFinished {
			if _, err := parseFinished(call.Arguments); err != nil {
				return nil, failed(planFinished, fmt.Errorf("it called finished wrongly: %w", err))
			}
			return nil, failed(planFinished, errors.New("it called finished"))
		}
	}
	switch {
	case len(resp.ToolCalls) > 0:
		return nil, failed(planOtherTool, fmt.Errorf("it called %s, not plan", resp.ToolCalls[0].Name))
	case strings.TrimSpace(resp.Text) != "":
		return nil, failed(planText, fmt.Errorf("it answered text instead of calling plan: %q", cut(oneLine(resp.Text), 120)))
	}
	return nil, failed(planNothing, errors.New("it answered nothing"))
}

func (r *runner) setPlan(steps []planStep) {
	t := r.task
	titles := make([]string, len(steps))
	for i, s := range steps {
		t.Steps = append(t.Steps, Step{Index: i + 1, Title: s.title, Description: s.description, Status: StepPending})
		titles[i] = fmt.Sprintf("%d. %s", i+1, s.title)
	}
	r.summaries = make([]string, len(steps))
	r.emit(EventPlanned, 0, "📋 Plan made (%s): %s", nSteps(len(steps)), strings.Join(titles, "; "))
}
