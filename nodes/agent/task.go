package agent

import (
	"encoding/json"
	"time"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// Task states, as the seed's state machine names them: idle → planning → executing →
// finished, failed or aborted.
const (
	StatusIdle      = "idle"
	StatusPlanning  = "planning"
	StatusExecuting = "executing"
	StatusFinished  = "finished"
	StatusFailed    = "failed"
	StatusAborted   = "aborted"
)

// Step states.
const (
	StepPending = "pending"
	StepRunning = "running"
	StepSuccess = "success"
	StepFailed  = "failed"
	StepSkipped = "skipped"
)

// Task is one agent run: what Run returns, and what get_task_result shows.
type Task struct {
	Goal       string `json:"goal"`
	Status     string `json:"status"` // StatusPlanning, StatusExecuting, StatusFinished, StatusFailed, StatusAborted ("idle" before Run)
	Conclusion string `json:"conclusion,omitempty"`
	Error      string `json:"error,omitempty"`
	// TimedOut says the task's deadline ended it (Status is then StatusAborted, as the seed
	// has it); ModelTimedOut that it was waiting for the model's answer then.
	TimedOut      bool        `json:"timedOut,omitempty"`
	ModelTimedOut bool        `json:"modelTimedOut,omitempty"`
	Steps         []Step      `json:"steps"`
	Started       time.Time   `json:"started"`
	Ended         time.Time   `json:"ended"`
	DurationMS    int64       `json:"durationMs"`
	ModelCalls    int         `json:"modelCalls"`
	Usage         model.Usage `json:"usage"`
	// Actions are the device tool calls that succeeded, in order, for turning the run into a
	// test (a failed call has nothing to replay; the step's ToolCalls keep it).
	Actions []Action `json:"actions"`
	// Failure is what ended a task that did not finish, as its logs name it (FailureDevice:
	// the device; "model", "loop", "budget", …: mostly the model's doing); Cause is the error
	// that ended it, the device's own for FailureDevice (its code is the device tool's).
	Failure string `json:"failure,omitempty"`
	Cause   error  `json:"-"`
}

// Step is one step of the plan.
type Step struct {
	Index       int    `json:"index"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Status      string `json:"status"` // StepPending, StepRunning, StepSuccess, StepFailed, StepSkipped
	// ToolCalls are every call the model made in the step, step_done and finished included.
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	Error      string     `json:"error,omitempty"`
	DurationMS int64      `json:"durationMs"`
	// Before and After are JPEG screenshots at the step's start and end (kept for records, not in JSON).
	Before, After []byte `json:"-"`
}

// ToolCall is one call the model made, and what came of it.
type ToolCall struct {
	Name       string          `json:"name"`
	Args       json.RawMessage `json:"args"`
	Result     string          `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
	DurationMS int64           `json:"durationMs"`
}

// Action is one device tool call as a test would replay it.
type Action struct {
	Step   int             `json:"step"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	WaitMS int64           `json:"waitMs"` // time from the previous action's end to this one's start (0 for the first)
	// ExpectText is a label the next screen showed that the one before did not, usable as a check.
	ExpectText string `json:"expectText,omitempty"`
}

// StepsCompleted counts the steps that succeeded.
func (t *Task) StepsCompleted() int {
	n := 0
	for _, s := range t.Steps {
		if s.Status == StepSuccess {
			n++
		}
	}
	return n
}

// ms is d in whole milliseconds, never negative (a clock may step back).
func ms(d time.Duration) int64 { return max(d.Milliseconds(), 0) }
