package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// MaxSequenceSteps bounds a sequence (PhysiClaw: up to 5).
const MaxSequenceSteps = 5

// seqTool is a tool a sequence step may name.
type seqTool struct {
	args func() any // a new pointer to the tool's argument struct
	// arg says what the PhysiClaw step form's "arg" is for this tool besides an object of
	// arguments: "bbox" (an array), "text" (a string), or "" (only an object).
	arg string
	// needs are the tool's Needs: a sequence checks them all before its first step.
	needs []Ability
}

// sequenceTools are the tools a step may run, those whose Tool has a Step form: actions on the
// screen, keys and text. Tools that only look (peek, screenshot) gain nothing inside a sequence;
// long or destructive ones (sleep, app_install, app_clear, force_quit, ...) and sequence itself
// are left out.
var sequenceTools = sync.OnceValue(func() map[string]seqTool {
	m := map[string]seqTool{}
	for _, t := range All() {
		if t.Step == NoStep {
			continue
		}
		arg := map[StepForm]string{StepBBox: "bbox", StepText: "text"}[t.Step]
		m[t.Name] = seqTool{args: func() any { return reflect.New(t.Args).Interface() }, arg: arg, needs: t.Needs}
	}
	return m
})

// SequenceTools lists the tools a sequence step may name, sorted.
func SequenceTools() []string {
	names := make([]string, 0, len(sequenceTools()))
	for n := range sequenceTools() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// SequenceStep is one step: the tool to run and its arguments. args is an object of the tool's
// own arguments, exactly as the tool takes them. arg is the PhysiClaw form: the bbox array for
// tap, double_tap and long_press, the text string for send_to_clipboard and input, or an object
// of arguments (swipe's {bbox, direction, size, speed}). Give one of them, or neither for tools
// without arguments.
type SequenceStep struct {
	ToolName string          `json:"tool_name"`
	Args     json.RawMessage `json:"args,omitempty"`
	Arg      json.RawMessage `json:"arg,omitempty"`
	needs    []Ability       // the tool's, set by check
}

// SequenceArgs are sequence's arguments: steps, a list of 1 to 5 steps; or the PhysiClaw form,
// step1 to step5 (step1 required, no gaps). Check turns the second form into the first.
type SequenceArgs struct {
	Steps []SequenceStep `json:"steps,omitempty" arg:"minItems=1,maxItems=5" desc:"1 to 5 steps, run in order"`
	Step1 *SequenceStep  `json:"step1,omitempty" desc:"PhysiClaw form of step 1: {tool_name, arg}"`
	Step2 *SequenceStep  `json:"step2,omitempty" desc:"PhysiClaw form of step 2: {tool_name, arg}"`
	Step3 *SequenceStep  `json:"step3,omitempty" desc:"PhysiClaw form of step 3: {tool_name, arg}"`
	Step4 *SequenceStep  `json:"step4,omitempty" desc:"PhysiClaw form of step 4: {tool_name, arg}"`
	Step5 *SequenceStep  `json:"step5,omitempty" desc:"PhysiClaw form of step 5: {tool_name, arg}"`
}

// patchSchema describes a step: its tool_name's enum is the step tools.
func (*SequenceArgs) patchSchema(props map[string]map[string]any) {
	props["steps"]["items"] = map[string]any{
		"type":        "object",
		"description": "One step: {tool_name, args} or {tool_name, arg}",
		"properties": map[string]any{
			"tool_name": map[string]any{"type": "string", "enum": SequenceTools(), "description": "The step's tool"},
			"args":      map[string]any{"type": "object", "description": "The tool's own arguments, as the tool takes them (no serial or lease)"},
			"arg": map[string]any{"description": "PhysiClaw form of args: a bbox for tap, double_tap, long_press; " +
				"the text for send_to_clipboard, input; else an object (swipe: {bbox, direction, size, speed})"},
		},
		"required":             []string{"tool_name"},
		"additionalProperties": false,
	}
}

// Check validates every step's tool and arguments (so that nothing runs unless every step
// could) and normalizes the steps: one list, lower-case tool names, and args holding the
// tool's checked arguments.
func (a *SequenceArgs) Check() error {
	numbered := []*SequenceStep{a.Step1, a.Step2, a.Step3, a.Step4, a.Step5}
	last := -1
	for i, s := range numbered {
		if s != nil {
			last = i
		}
	}
	if last >= 0 {
		if a.Steps != nil {
			return errors.New("give steps (a list), or step1 to step5 (the PhysiClaw form), not both")
		}
		for i := 0; i <= last; i++ {
			if numbered[i] == nil {
				return fmt.Errorf("step%d is given but step%d is not: number the steps from step1 without gaps", last+1, i+1)
			}
			a.Steps = append(a.Steps, *numbered[i])
		}
		a.Step1, a.Step2, a.Step3, a.Step4, a.Step5 = nil, nil, nil, nil, nil
	}
	switch n := len(a.Steps); {
	case n == 0:
		return fmt.Errorf("steps is required: 1 to %d steps, each {\"tool_name\": ..., \"args\": {...}}; step tools: %s",
			MaxSequenceSteps, strings.Join(SequenceTools(), ", "))
	case n > MaxSequenceSteps:
		return fmt.Errorf("a sequence has at most %d steps, got %d: split it, and peek between the parts", MaxSequenceSteps, n)
	}
	for i := range a.Steps {
		if err := a.Steps[i].check(); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	return nil
}

func (s *SequenceStep) check() error {
	name := strings.ToLower(strings.TrimSpace(s.ToolName))
	tool, ok := sequenceTools()[name]
	if !ok {
		if name == "" {
			return fmt.Errorf("tool_name is required: one of %s", strings.Join(SequenceTools(), ", "))
		}
		return fmt.Errorf("tool_name %q cannot run in a sequence; step tools are %s", clip(s.ToolName), strings.Join(SequenceTools(), ", "))
	}
	args, arg := present(s.Args), present(s.Arg)
	raw := s.Args
	switch {
	case args && arg:
		return fmt.Errorf("%s: give args (an object) or arg (the PhysiClaw form), not both", name)
	case !args && !arg:
		raw = nil
	case arg:
		var err error
		if raw, err = compactArg(name, tool.arg, s.Arg); err != nil {
			return err
		}
	}
	v := tool.args()
	if err := DecodeArgs(raw, v); err != nil {
		return fmt.Errorf("%s: %s", name, argWords(err))
	}
	norm, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: arguments cannot be encoded: %v", name, err)
	}
	s.ToolName, s.Args, s.Arg, s.needs = name, norm, nil, tool.needs
	return nil
}

// present reports whether a raw JSON value was given (not absent, not null).
func present(raw json.RawMessage) bool {
	v := bytes.TrimSpace(raw)
	return len(v) > 0 && !bytes.Equal(v, []byte("null"))
}

// compactArg turns a PhysiClaw "arg" into an object of arguments.
func compactArg(name, kind string, arg json.RawMessage) (json.RawMessage, error) {
	v := bytes.TrimSpace(arg)
	switch {
	case v[0] == '{':
		return v, nil
	case v[0] == '[' && kind == "bbox":
		return json.Marshal(map[string]json.RawMessage{"bbox": v})
	case v[0] == '"' && kind == "text":
		return json.Marshal(map[string]json.RawMessage{"text": v})
	case kind == "bbox":
		return nil, fmt.Errorf("%s: arg must be the bbox [left, top, right, bottom] (relative 0-1)", name)
	case kind == "text":
		return nil, fmt.Errorf("%s: arg must be the text, a string", name)
	}
	return nil, fmt.Errorf("%s: arg must be an object of %s's arguments", name, name)
}

// argWords rewrites a step's decoding error without encoding/json's words, which the gateway
// would otherwise take for the sequence's own.
func argWords(err error) string {
	if msg, _, ok := ArgProblem(err); ok {
		if strings.HasPrefix(msg, "arguments must be") {
			return "args must be an object of the tool's arguments"
		}
		return msg
	}
	msg := err.Error()
	var oe *OpError
	if errors.As(err, &oe) && oe.Err == nil {
		msg = oe.Msg
	}
	return strings.TrimPrefix(msg, "arguments: ")
}

// StepResult is one step's outcome in sequence's result.
type StepResult struct {
	Step       int    `json:"step" jsonschema:"Step number, from 1"`
	ToolName   string `json:"tool_name" jsonschema:"The step's tool"`
	Message    string `json:"message" jsonschema:"The step's own result message"`
	DurationMS int64  `json:"durationMs" jsonschema:"Milliseconds the step took"`
}

// SequenceResult is sequence's structured result.
type SequenceResult struct {
	Message string       `json:"message" jsonschema:"Every step ran"`
	Steps   []StepResult `json:"steps" jsonschema:"Per-step results, in order"`
	Hint    string       `json:"hint"`
	// MarkedScreenshots are the marked screens of the steps given pre_mark_operation.
	MarkedScreenshots []string `json:"markedScreenshots,omitempty" jsonschema:"Marked screens (pre_mark_operation)"`
}

// sequence runs up to five action steps as one task: the device is held for the whole run, so
// nothing else runs between the steps. Each step runs the node's own op (Task.Env), configured
// as it is on its own. It stops at the first failure, undoing nothing.
func sequence() Tool {
	return Define[SequenceArgs, SequenceResult](Tool{
		Name: "sequence",
		Description: "Run up to 5 action steps as one task on the device: no other call runs between them. For fixed flows " +
			"(tap, tap, tap to open an app; paste and send). All steps are checked before any runs; the first failure " +
			"stops the rest, earlier steps are not undone. Give steps, a list of {tool_name, args}, or step1..step5 " +
			"(PhysiClaw). Don't batch across a dialog that may or may not appear: peek between.",
		Timeout:    2 * time.Minute,
		MaxTimeout: 10 * time.Minute,
		Profiles:   []string{PhysiClaw},
		Progress:   true,
		Short:      Short{Kind: ShortSteps, Usage: "a list of steps, each an action {method, params, options} or {tool_name, args}"},
		// No Needs of its own: the steps' tools' Needs are checked before the first step runs.
	}, func(ctx context.Context, t *Task, a SequenceArgs) (Output, error) {
		if err := unservedSteps(t.Driver, a.Steps); err != nil {
			return Output{}, err
		}
		env := t.env()
		n := len(a.Steps)
		results := make([]StepResult, 0, n)
		var marks []string // of steps given pre_mark_operation
		for i, s := range a.Steps {
			if err := ctx.Err(); err != nil {
				return Output{}, stepFailure(i, a.Steps, results, err)
			}
			start := time.Now()
			out, err := env.Ops[s.ToolName].Run(ctx, &Task{ID: t.ID, Driver: t.Driver, Args: s.Args, Env: env})
			if err != nil {
				return Output{}, stepFailure(i, a.Steps, results, err)
			}
			step := resultOf(out.Data)
			results = append(results, StepResult{Step: i + 1, ToolName: s.ToolName, Message: step.Message,
				DurationMS: time.Since(start).Milliseconds()})
			marks = append(marks, step.MarkedScreenshots...)
			if t.Progress != nil {
				t.Progress(float64(i+1), float64(n), fmt.Sprintf("step %d of %d (%s) done", i+1, n, s.ToolName))
			}
		}
		return Output{Data: SequenceResult{Message: ranSteps(n), Steps: results, Hint: hintSequence, MarkedScreenshots: marks}}, nil
	})
}

// unservedSteps refuses a sequence any of whose steps needs an ability the device lacks, before
// any step runs (a step found unable only when its turn comes would leave the earlier ones
// done), naming every such step.
func unservedSteps(d device.Driver, steps []SequenceStep) error {
	var faults []string
	for i, s := range steps {
		for _, n := range s.needs {
			if !n.in(d) {
				fault := fmt.Sprintf("step %d (%s) cannot %s", i+1, s.ToolName, n.Doing)
				if n.Alternative != "" {
					fault += " (on it, " + n.Alternative + ")"
				}
				faults = append(faults, fault)
				break
			}
		}
	}
	if len(faults) == 0 {
		return nil
	}
	info := d.Info()
	return &OpError{Code: broker.CodeUnsupported, Msg: fmt.Sprintf("device %s (%s) cannot run this sequence: %s. Nothing ran: "+
		"leave those steps out, or use a device whose platform supports them (see list_available_devices)",
		info.Serial, info.Platform, strings.Join(faults, "; "))}
}

// stepError is a failed step's error followed by what ran before it and what did not.
type stepError struct {
	err  error
	tail string
	ran  int // steps that ran before the failed one
}

func (e *stepError) Error() string { return e.err.Error() + ". " + e.tail }
func (e *stepError) Unwrap() error { return e.err }

// PartlyRan reports whether err ended a task after some of its work was done (a sequence
// stopped at a later step): whatever its code, such a task changed the device, so it is no
// refusal (which promises that nothing ran).
func PartlyRan(err error) bool {
	var se *stepError
	return errors.As(err, &se) && se.ran > 0
}

// stepFailure explains a sequence stopped at step i. Its code is the step's, even after
// earlier steps ran (the message names them): a step refused as bad input is the caller's
// mistake, not the device's failure, which driver_error would count against it.
func stepFailure(i int, steps []SequenceStep, done []StepResult, err error) error {
	n := len(steps)
	var tail strings.Builder
	if i == 0 {
		tail.WriteString("Nothing ran")
	} else {
		fmt.Fprintf(&tail, "Steps 1-%d ran and are not undone:", i)
		if i == 1 {
			tail.Reset()
			tail.WriteString("Step 1 ran and is not undone:")
		}
		for _, r := range done {
			fmt.Fprintf(&tail, " [%d %s: %s]", r.Step, r.ToolName, clipN(r.Message, 160))
		}
	}
	if rest := n - i - 1; rest > 0 {
		names := make([]string, 0, rest)
		for _, s := range steps[i+1:] {
			names = append(names, s.ToolName)
		}
		fmt.Fprintf(&tail, "; the remaining %d (%s) did not run", rest, strings.Join(names, ", "))
	}
	tail.WriteString(". peek to see where it stopped, then go on from there.")
	return &OpError{Code: ErrorCode(err), Msg: fmt.Sprintf("sequence stopped at step %d of %d (%s)", i+1, n, steps[i].ToolName),
		Err: &stepError{err: err, tail: tail.String(), ran: i}}
}

// stepResult is what a sequence reads of a step's result data.
type stepResult struct {
	Message string `json:"message"`
	BehaviourResult
}

// resultOf reads an op's result data.
func resultOf(data any) stepResult {
	var r stepResult
	if b, err := json.Marshal(data); err == nil {
		_ = json.Unmarshal(b, &r)
	}
	return r
}

// messageOf returns the message field of an op's result data.
func messageOf(data any) string { return resultOf(data).Message }

// ranSteps says that a sequence of n steps ran them all: "ran its 1 step", "ran all 3 steps".
func ranSteps(n int) string {
	if n == 1 {
		return "ran its 1 step"
	}
	return fmt.Sprintf("ran all %d steps", n)
}
