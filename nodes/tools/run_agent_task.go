package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/agent"
)

// Defaults and caps of run_agent_task (phone-agent seed: 20 minutes by default).
const (
	agentTaskTimeout    = 20 * time.Minute
	agentTaskMaxTimeout = 2 * time.Hour
	maxAgentGoal        = 4000
	maxAgentSteps       = 30
)

// RunAgentTaskArgs are run_agent_task's arguments (phone-agent seed, plus budgets). The budgets
// are pointers: a 0 given is refused (below the schema's minimum), not taken for the default.
type RunAgentTaskArgs struct {
	Goal      string `json:"goal" arg:"required,minLength=1,maxLength=4000" desc:"What to do on the device, in words" help:"a goal in natural language, e.g. \"open Settings and turn on Wi-Fi\""`
	TimeoutMS *int64 `json:"timeoutMs,omitempty" arg:"min=1000,max=7200000" desc:"Longest run in ms (default 1200000: 20 min)" unit:"ms" hint:"leave timeoutMs out for the default, 20 min"`
	MaxSteps  *int   `json:"maxSteps,omitempty" arg:"min=1,max=30" desc:"Plan steps at most (default 10)" hint:"leave maxSteps out for the default, 10"`
	Wait      *bool  `json:"wait,omitempty" desc:"false: answer at once with the task id and let it run; poll get_task_result"`
}

// AgentTaskResult is run_agent_task's structured result (the seed's JSON, plus the steps and
// the Markdown report).
type AgentTaskResult struct {
	TaskID         string        `json:"taskId" jsonschema:"Task id: get_task_result finds it"`
	Goal           string        `json:"goal" jsonschema:"The goal"`
	Status         string        `json:"status" jsonschema:"finished, failed or aborted"`
	Conclusion     string        `json:"conclusion,omitempty" jsonschema:"What the agent concluded"`
	StepsCompleted int           `json:"stepsCompleted" jsonschema:"Plan steps that succeeded"`
	TotalSteps     int           `json:"totalSteps" jsonschema:"Plan steps"`
	DurationMS     int64         `json:"durationMs" jsonschema:"How long it ran, in ms"`
	Error          string        `json:"error,omitempty" jsonschema:"Why it failed or stopped"`
	ModelCalls     int           `json:"modelCalls" jsonschema:"Calls to the model"`
	Tokens         int           `json:"tokens" jsonschema:"Tokens the model counted, prompt and completion"`
	Steps          []AgentStep   `json:"steps,omitempty" jsonschema:"The plan's steps with their tool calls"`
	Actions        []AgentAction `json:"actions,omitempty" jsonschema:"Every device tool call that succeeded, in order: what a replay runs"`
}

// AgentStep is one step of an agent task's plan, as its result shows it.
type AgentStep struct {
	Index       int             `json:"index"`
	Title       string          `json:"title"`
	Description string          `json:"description,omitempty"`
	Status      string          `json:"status"`
	ToolCalls   []AgentToolCall `json:"toolCalls,omitempty"`
	Error       string          `json:"error,omitempty"`
	DurationMS  int64           `json:"durationMs"`
	Before      string          `json:"beforeScreenshot,omitempty" jsonschema:"The screen the step began on: get_task_result's screenshotsOfStep shows it"`
	After       string          `json:"afterScreenshot,omitempty" jsonschema:"The screen the step ended on"`
}

// AgentToolCall is one call of the model in a step.
type AgentToolCall struct {
	Name       string `json:"name"`
	Args       any    `json:"args"`
	Result     string `json:"result,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"durationMs"`
}

// AgentAction is one device tool call an agent task made, as a replay runs it.
type AgentAction struct {
	Step       int    `json:"step"`
	Tool       string `json:"tool"`
	Args       any    `json:"args"`
	WaitMS     int64  `json:"waitMs"`
	ExpectText string `json:"expectText,omitempty"`
}

// errNoModel is the answer of the AI tools on a node without a model: unconfigured, not
// unsupported, as no device of the node can run them until the node is given one.
var errNoModel = &OpError{Code: broker.CodeUnconfigured, Msg: "agent tasks need a model, and this node has none: set OPENAI_MODEL " +
	"(or --openai-model) where the node runs, with OPENAI_API_KEY for OpenAI's API, or OPENAI_BASE_URL (--openai-base-url) " +
	"too for another server (e.g. Ollama: OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen2.5vl)"}

// runAgentTask runs a goal on the device with a Plan-and-Resolve agent next to it: the node
// looks at the screen, asks the model for a plan, and for each step lets the model call the
// catalog's action tools until it says the step is done, or the whole goal (finished). The
// task holds the device the whole time; abort_task stops it between or during steps.
func runAgentTask() Tool {
	return Define[RunAgentTaskArgs, AgentTaskResult](Tool{
		Name: "run_agent_task",
		Description: "Run a goal in natural language on the device with an AI agent next to it (Plan-and-Resolve: it plans steps, " +
			"looks at the screen and taps, types and swipes until done). Streams progress; answers a Markdown report. " +
			"Holds the device meanwhile; abort_task stops it. wait:false answers at once with the taskId to poll.",
		Hints:         Hints{Destructive: true, OpenWorld: true},
		Timeout:       agentTaskTimeout,
		MaxTimeout:    agentTaskMaxTimeout,
		Profiles:      []string{PhoneAgent},
		Progress:      true,
		Background:    true,
		DefaultDevice: true,
		Short:         Short{Kind: ShortText, Keys: []string{"goal"}, Usage: `a goal, e.g. "open Settings and turn on Wi-Fi"`},
	}, func(ctx context.Context, t *Task, a RunAgentTaskArgs) (Output, error) {
		parent := ctx
		if a.TimeoutMS != nil {
			var cancel context.CancelFunc
			// Its cause tells the agent that this deadline is the caller's timeoutMs.
			limit := time.Duration(*a.TimeoutMS) * time.Millisecond
			ctx, cancel = context.WithTimeoutCause(ctx, limit, agent.TimeLimit{Arg: "timeoutMs", D: limit})
			defer cancel()
		}
		if a.Wait != nil && !*a.Wait && t.env().Config.Model != nil && t.Progress != nil {
			// The gateway answers a caller who does not wait once the task starts (or is refused).
			t.Progress(0, 0, "🤖 Agent task started")
		}
		task, err := runAgent(ctx, t, a.Goal, agent.Budget{MaxSteps: budgetSteps(a.MaxSteps)})
		if err != nil {
			return Output{}, err
		}
		res := agentResult(t.ID, task)
		keepScreenshots(ctx, t, task.Steps, res.Steps)
		return Output{Data: res, Text: task.Markdown(), Failure: agentFailure(parent, task, callerLimit(t))}, nil
	})
}

// budgetSteps is the plan steps maxSteps allows: 0, the budget's default, when it is left out.
func budgetSteps(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// agentFailure is why an agent task that did not finish failed, nil when it finished: the
// task's record and metrics then count it failed (aborted or timed out when its context
// ended), while its report still answers. A task stopped from outside (abort_task, the
// task's deadline, its device gone) says how far it got; the node's scheduler says why it
// stopped, and the agent's own error, that same cause, would only repeat it.
func agentFailure(parent context.Context, task *agent.Task, limit *agent.TimeLimit) error {
	// The node's deadline is the caller's own when they gave timeout_ms: told as their limit.
	ownLimit := limit != nil && errors.Is(parent.Err(), context.DeadlineExceeded)
	switch {
	case task.Status == agent.StatusFinished:
		return nil
	case task.ModelTimedOut && parent.Err() != nil && !ownLimit: // the node's deadline, waiting for the model: say so
		return fmt.Errorf("the agent stopped after %d of %d plan steps: %s", task.StepsCompleted(), len(task.Steps), task.Error)
	case parent.Err() != nil && !ownLimit: // aborted, or its device gone: the scheduler's cause leads, this follows it
		return stoppedFromOutside(parent, task)
	case task.ModelTimedOut: // its own timeoutMs or timeout_ms, waiting for the model: the error says what to do
		return timedOut(task.Error)
	case task.Status == agent.StatusAborted && ownLimit:
		return timedOut(task.Error + ": pass a larger " + limit.Arg + ", or split the goal")
	case task.Status == agent.StatusAborted: // its own timeoutMs
		return timedOut(task.Error + ": pass a larger timeoutMs, or split the goal")
	case task.Error == "":
		return errors.New("the agent did not reach the goal")
	case task.Failure == agent.FailureDevice:
		return deviceFailure(task, task.Error)
	}
	return errors.New(task.Error)
}

// stoppedFromOutside is how far a task got whose context ended from outside, with the
// agent's own error only when it says more than that cause (a device's error that came first).
func stoppedFromOutside(parent context.Context, task *agent.Task) error {
	progress := fmt.Sprintf("the agent stopped after %d of %d plan steps", task.StepsCompleted(), len(task.Steps))
	if task.Status == agent.StatusAborted || task.Error == "" || strings.Contains(task.Error, context.Cause(parent).Error()) {
		return errors.New(progress)
	}
	return fmt.Errorf("%s: %s", progress, task.Error)
}

// timedOut is an agent task's failure for its own timeoutMs: a timed_out outcome.
type timedOut string

func (e timedOut) Error() string        { return string(e) }
func (e timedOut) Is(target error) bool { return target == context.DeadlineExceeded }

// screenshotSaveTimeout bounds saving a task's screenshots, which happens after the task
// ended, even aborted.
const screenshotSaveTimeout = 5 * time.Second

// keepScreenshots saves the steps' screenshots with the node's ScreenshotSaver and names them
// in out. One the saver refuses is left unnamed (the saver tells why), and the task's
// outcome stays what it was: the screenshots are a record of the task, not part of it.
func keepScreenshots(ctx context.Context, t *Task, steps []agent.Step, out []AgentStep) {
	saver := t.env().Config.Screenshots
	if saver == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), screenshotSaveTimeout)
	defer cancel()
	names := make(map[string]string) // a screen saved once for the task (a step begins where the last ended)
	save := func(jpeg []byte) string {
		if len(jpeg) == 0 {
			return ""
		}
		name, ok := names[string(jpeg)]
		if !ok {
			name, _ = saver.SaveScreenshot(ctx, t.ID, jpeg)
			names[string(jpeg)] = name
		}
		return name
	}
	for i, s := range steps {
		out[i].Before, out[i].After = save(s.Before), save(s.After)
	}
}

// runAgent runs an agent with the node's model on the task's device, its events the task's
// progress; without a model it says how to configure one.
func runAgent(ctx context.Context, t *Task, goal string, budget agent.Budget) (*agent.Task, error) {
	env := t.env()
	if env.Config.Model == nil {
		return nil, errNoModel
	}
	return agent.Run(ctx, agent.Options{Goal: goal, Model: env.Config.Model, Device: wrongCalls{agentDevice{task: t, env: env}},
		Budget: budget, Progress: agentProgress(t), Log: agentLog(env, t), Limit: callerLimit(t)}), nil
}

// agentLog is the node's logger for an agent task, naming the task and its device (never its
// goal, which may hold what the user typed for the phone); nil when the node gave none.
func agentLog(env *Env, t *Task) *slog.Logger {
	if env.Config.Log == nil {
		return nil
	}
	log := env.Config.Log.With("task", t.ID)
	if t.Driver != nil {
		log = log.With("serial", t.Driver.Info().Serial)
	}
	return log
}

// agentProgress forwards the agent's events as the task's progress, numbered.
func agentProgress(t *Task) func(agent.Event) {
	if t.Progress == nil {
		return nil
	}
	seq := 0
	return func(e agent.Event) {
		seq++
		t.Progress(float64(seq), 0, e.Message)
	}
}

// agentResult is the structured result of a finished agent task.
func agentResult(id string, task *agent.Task) AgentTaskResult {
	return AgentTaskResult{TaskID: id, Goal: task.Goal, Status: task.Status, Conclusion: task.Conclusion,
		StepsCompleted: task.StepsCompleted(), TotalSteps: len(task.Steps), DurationMS: task.DurationMS, Error: task.Error,
		ModelCalls: task.ModelCalls, Tokens: task.Usage.TotalTokens, Steps: agentSteps(task.Steps), Actions: agentActions(task.Actions)}
}

func agentSteps(steps []agent.Step) []AgentStep {
	out := make([]AgentStep, len(steps))
	for i, s := range steps {
		out[i] = AgentStep{Index: s.Index, Title: s.Title, Description: s.Description, Status: s.Status, Error: s.Error, DurationMS: s.DurationMS}
		for _, c := range s.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, AgentToolCall{Name: c.Name, Args: jsonValue(c.Args), Result: c.Result, Error: c.Error, DurationMS: c.DurationMS})
		}
	}
	return out
}

func agentActions(actions []agent.Action) []AgentAction {
	out := make([]AgentAction, len(actions))
	for i, a := range actions {
		out[i] = AgentAction{Step: a.Step, Tool: a.Tool, Args: jsonValue(a.Args), WaitMS: a.WaitMS, ExpectText: a.ExpectText}
	}
	return out
}

// jsonValue decodes raw JSON for a result (nil when it is not JSON: a model's broken arguments).
func jsonValue(raw []byte) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}
