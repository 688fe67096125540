package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// The agent's own functions, beside the device's tools.
const (
	toolPlan     = "plan"
	toolStepDone = "step_done"
	toolFinished = "finished"
)

// Bounds on what the model writes into the records.
const (
	maxTitleRunes   = 200
	maxDescRunes    = 1000
	maxSummaryRunes = 4000
)

func planTool(maxSteps int) model.Tool {
	return model.Tool{
		Name:        toolPlan,
		Description: fmt.Sprintf("Give the plan: %s that reach the goal on the phone, in order.", upToSteps(maxSteps, "")),
		Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"steps":{"type":"array","minItems":1,"maxItems":%d,`+
			`"items":{"type":"object","properties":{`+
			`"title":{"type":"string","description":"What the step does, in a few words, e.g. Open Settings"},`+
			`"description":{"type":"string","description":"How to do it and how to tell it is done"}},`+
			`"required":["title"]}}},"required":["steps"]}`, maxSteps)),
	}
}

var stepDoneTool = model.Tool{
	Name:        toolStepDone,
	Description: `End the current step: status "success" when the screen shows it is done, "failed" when it cannot be done; summary says what you saw or why.`,
	Parameters: json.RawMessage(`{"type":"object","properties":{` +
		`"status":{"type":"string","enum":["success","failed"]},` +
		`"summary":{"type":"string","description":"What the step achieved or found, or why it failed"}},` +
		`"required":["status","summary"]}`),
}

var finishedTool = model.Tool{
	Name:        toolFinished,
	Description: "The whole goal is met: end the task; content is the conclusion for the user, with any result the goal asked for.",
	Parameters: json.RawMessage(`{"type":"object","properties":{` +
		`"content":{"type":"string","description":"The conclusion: what was done and any value read from the screen"}},` +
		`"required":["content"]}`),
}

// planStep is one step as the model planned it.
type planStep struct{ title, description string }

// parsePlan reads plan's arguments. It is lenient where models commonly slip (steps as a
// JSON string, a step as a bare string, "name" for "title") and strict on the rest.
func parsePlan(raw json.RawMessage, maxSteps int) ([]planStep, error) {
	var a struct {
		Steps json.RawMessage `json:"steps"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("the arguments are not a JSON object (%v)", err)
	}
	if len(a.Steps) == 0 || string(a.Steps) == "null" {
		return nil, errors.New("the arguments have no steps")
	}
	var s string
	if json.Unmarshal(a.Steps, &s) == nil {
		a.Steps = json.RawMessage(s) // the list written as a string
	}
	var items []json.RawMessage
	if err := json.Unmarshal(a.Steps, &items); err != nil {
		return nil, errors.New("steps is not a list")
	}
	switch {
	case len(items) == 0:
		return nil, fmt.Errorf("the plan has no steps: give %s", upToSteps(maxSteps, ""))
	case len(items) > maxSteps && maxSteps > 1: // one step only: merged below (oneStep)
		return nil, fmt.Errorf("the plan has %d steps, at most %s allowed: merge steps", len(items), isAre(maxSteps))
	}
	out := make([]planStep, 0, len(items))
	for i, it := range items {
		var st struct {
			Title       string `json:"title"`
			Name        string `json:"name"`
			Description string `json:"description"`
		}
		if json.Unmarshal(it, &st.Title) != nil && json.Unmarshal(it, &st) != nil {
			return nil, fmt.Errorf("step %d is neither an object {title, description} nor a string", i+1)
		}
		title := oneLine(st.Title)
		if title == "" {
			title = oneLine(st.Name)
		}
		if title == "" {
			return nil, fmt.Errorf("step %d has no title", i+1)
		}
		out = append(out, planStep{cut(title, maxTitleRunes), cut(strings.TrimSpace(st.Description), maxDescRunes)})
	}
	if len(out) > maxSteps {
		return []planStep{oneStep(out)}, nil
	}
	return out, nil
}

// parseStepDone reads step_done's arguments: success is true for "success", false for "failed".
func parseStepDone(raw json.RawMessage) (success bool, summary string, err error) {
	var a struct {
		Status  string `json:"status"`
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return false, "", fmt.Errorf("the arguments are not a JSON object {status, summary} (%v)", err)
	}
	summary = cut(strings.TrimSpace(a.Summary), maxSummaryRunes)
	switch strings.ToLower(strings.TrimSpace(a.Status)) {
	case "success", "succeeded", "successful", "done", "ok":
		return true, summary, nil
	case "failed", "failure", "fail", "error":
		return false, summary, nil
	}
	return false, "", fmt.Errorf(`status must be "success" or "failed", not %q`, cut(a.Status, 40))
}

// parseFinished reads finished's arguments: the conclusion, which its schema requires, as
// the task's answer to its caller.
func parseFinished(raw json.RawMessage) (string, error) {
	var a struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", fmt.Errorf("the arguments are not a JSON object {content} (%v)", err)
	}
	if a.Content == nil || strings.TrimSpace(*a.Content) == "" {
		return "", errors.New(`content is required: call finished again with {"content":"..."}, the conclusion for the user (what was done, any value the goal asked for)`)
	}
	return cut(strings.TrimSpace(*a.Content), maxSummaryRunes), nil
}
