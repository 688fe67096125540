package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
)

// PromptArgs are the arguments of HttpRunner's ai_action and ai_query.
type PromptArgs struct {
	Prompt string `json:"prompt" arg:"required,minLength=1,maxLength=4000" desc:"What to do, or to ask, in words" help:"in words, what to do on the device (ai_action: 'open Settings and turn on Wi-Fi') or what to ask about its screen (ai_query: 'what is the battery level?')"`
	SeedOptions
}

// AIActionResult is ai_action's structured result: the seed's message, prompt and
// actionTaken (in words), and the calls themselves.
type AIActionResult struct {
	Message     string        `json:"message" jsonschema:"What the agent did"`
	Prompt      string        `json:"prompt" jsonschema:"The instruction it carried out"`
	Status      string        `json:"status" jsonschema:"finished, failed or aborted"`
	ActionTaken string        `json:"actionTaken" jsonschema:"The device calls it made, in words"`
	Actions     []AgentAction `json:"actions" jsonschema:"The device calls it made"`
	Error       string        `json:"error,omitempty" jsonschema:"Why it failed"`
}

// FinishedResult is finished's structured result (HttpRunner seed).
type FinishedResult struct {
	Message       string `json:"message" jsonschema:"Confirms the task is finished"`
	Content       string `json:"content" jsonschema:"Its conclusion"`
	TaskCompleted bool   `json:"taskCompleted" jsonschema:"true: the task is complete"`
}

// AIQueryResult is ai_query's structured result.
type AIQueryResult struct {
	Answer string `json:"answer" jsonschema:"The model's answer about the screen"`
}

// FinishedArgs are finished's arguments (HttpRunner seed).
type FinishedArgs struct {
	Content string `json:"content" arg:"required,maxLength=10000" desc:"The task's conclusion" help:"the task's conclusion for the user, in words: what was done, and any value the task asked for"`
	SeedOptions
}

// aiAction is HttpRunner's one intelligent action: one round of look, act and check, as a
// one-step agent task.
func aiAction() Tool {
	return Define[PromptArgs, AIActionResult](Tool{
		Name:        "ai_action",
		Description: "Do one thing on the device described in words (HttpRunner): the AI looks at the screen, acts (tap, type, swipe) and checks.",
		Hints:       Hints{OpenWorld: true},
		Timeout:     2 * time.Minute,
		MaxTimeout:  10 * time.Minute,
		Profiles:    []string{HttpRunner},
		Progress:    true,
		Short:       Short{Kind: ShortText, Keys: []string{"prompt"}, Usage: `an action in words, e.g. "tap the search box"`},
	}, func(ctx context.Context, t *Task, a PromptArgs) (Output, error) {
		task, err := runAgent(ctx, t, a.Prompt, agent.Budget{MaxSteps: 1, MaxActions: 10})
		if err != nil {
			return Output{}, err
		}
		if err := ctx.Err(); err != nil && !task.TimedOut {
			return Output{}, err // aborted: the scheduler says by whom
		}
		actions := agentActions(task.Actions)
		res := AIActionResult{Prompt: a.Prompt, Status: task.Status, ActionTaken: actionsInWords(actions), Actions: actions, Error: task.Error,
			Message: fmt.Sprintf("%s after %d action(s)", ended(task), len(task.Actions))}
		if task.Conclusion != "" {
			res.Message += ": " + task.Conclusion
		}
		out := Output{Data: res}
		switch {
		case task.ModelTimedOut: // the error says which model did not answer, and what to do
			out.Failure = timedOut("ai_action " + task.Error)
		case task.TimedOut:
			out.Failure = timedOut("ai_action " + task.Error + ": give it more time (timeout_ms), or ask for less in one action")
		case task.Failure == agent.FailureDevice: // the device's code, as its tool's call would have
			out.Failure = deviceFailure(task, "ai_action "+task.Status+": "+task.Error)
		case task.Status != agent.StatusFinished: // failed, with what it did before
			out.Failure = modelFailure("ai_action "+task.Status, errors.New(task.Error))
		}
		return out, nil
	})
}

// ended is how an agent task ended, in words: its status, or "timed out" for an aborted one
// whose deadline passed.
func ended(task *agent.Task) string {
	if task.TimedOut {
		return "timed out"
	}
	return task.Status
}

// actionsInWords is ai_action's actionTaken: each call as `tool {args}`, in order.
func actionsInWords(actions []AgentAction) string {
	if len(actions) == 0 {
		return "no device call"
	}
	words := make([]string, len(actions))
	for i, a := range actions {
		args, _ := json.Marshal(a.Args)
		words[i] = a.Tool + " " + string(args)
	}
	return strings.Join(words, "; ")
}

// aiQuery answers a question about the screen (HttpRunner's ai_query): read-only.
func aiQuery() Tool {
	return Define[PromptArgs, AIQueryResult](Tool{
		Name:        "ai_query",
		Description: "Ask the AI a question about what the screen shows (HttpRunner); nothing on the device changes.",
		Hints:       Hints{ReadOnly: true, OpenWorld: true},
		Timeout:     time.Minute,
		MaxTimeout:  5 * time.Minute,
		Profiles:    []string{HttpRunner},
		Short:       Short{Kind: ShortText, Keys: []string{"prompt"}, Usage: `a question, e.g. "what is the price of Item 3?"`},
	}, func(ctx context.Context, t *Task, a PromptArgs) (Output, error) {
		env := t.env()
		if env.Config.Model == nil {
			return Output{}, errNoModel
		}
		obs, err := agentDevice{task: t, env: env}.Observe(ctx)
		if err != nil {
			return Output{}, err
		}
		resp, err := env.Config.Model.Chat(ctx, model.Request{Messages: []model.Message{
			{Role: model.RoleSystem, Text: "You answer questions about a phone's screen from its screenshot and its element listing. Answer briefly and exactly."},
			{Role: model.RoleUser, Text: a.Prompt + "\n\nElements on the screen (id [kind] \"label\" [l,t,r,b] conf):\n" + obs.Elements,
				Images: []model.Image{{MIME: "image/jpeg", Data: obs.JPEG}}},
		}})
		if err != nil {
			return Output{}, modelFailure("ai_query: the model", err)
		}
		if strings.TrimSpace(resp.Text) == "" { // an empty answer is no answer: say so, not {"answer": ""}
			return Output{}, modelFailure("ai_query: the model", noTextAnswer(resp))
		}
		return Output{Data: AIQueryResult{Answer: resp.Text}}, nil
	})
}

// deviceFailure is an agent task's failure, in words, that its device caused
// (agent.FailureDevice: its screen could not be read, a call failed on the device itself),
// with the code the device's tool would have answered (driver_error, unhealthy for a halted
// rig, …): a caller tells a broken device from a model's failure (modelFailure, no code).
func deviceFailure(task *agent.Task, words string) error {
	return &OpError{Code: ErrorCode(task.Cause), Msg: words}
}

// modelFailure is an AI tool's failure that is mostly the model's (an HTTP error, a cut
// connection, a loop, an answer of no use): no code, as run_agent_task's, not driver_error,
// which counts against the device and whose runbook says to take it out of service.
func modelFailure(msg string, err error) error {
	return &OpError{Msg: msg, Err: err}
}

// noTextAnswer says why a model's answer to ai_query, which gives it no tools, holds no text:
// it called tools anyway, or answered nothing, and what to try.
func noTextAnswer(resp model.Response) error {
	what := "an empty text"
	if n := len(resp.ToolCalls); n > 0 {
		what = fmt.Sprintf("%d tool call(s) (%s) and no text, though ai_query offers it no tools", n, resp.ToolCalls[0].Name)
	}
	if resp.FinishReason != "" {
		what += fmt.Sprintf(" (finish reason %q)", resp.FinishReason)
	}
	return fmt.Errorf("answered with %s: ask again, or ask in other words; a model that keeps doing so does not suit ai_query (OPENAI_MODEL)", what)
}

// finished is HttpRunner's end of an AI task with its conclusion. Inside run_agent_task the
// agent's model calls its own finished; called from outside, it records the conclusion.
func finished() Tool {
	return Define[FinishedArgs, FinishedResult](Tool{
		Name:        "finished",
		Description: "Mark the task as finished with its conclusion (HttpRunner); run_agent_task's agent ends with it.",
		Hints:       Hints{ReadOnly: true},
		Timeout:     5 * time.Second,
		MaxTimeout:  time.Minute,
		Profiles:    []string{HttpRunner},
		Short:       Short{Kind: ShortText, Keys: []string{"content"}, Usage: "the conclusion"},
	}, func(ctx context.Context, t *Task, a FinishedArgs) (Output, error) {
		return Output{Data: FinishedResult{Message: "finished: " + a.Content, Content: a.Content, TaskCompleted: true}}, nil
	})
}
