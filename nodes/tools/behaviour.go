package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"slices"

	"github.com/corral-farm/corral/nodes/device"
)

// Behaviour is HttpRunner's behaviour parameters (its 通用参数 行为参数), spelled and typed as
// its seed does. Every action tool embeds it in its argument struct, so it is declared and
// described once: every tool that is not read-only, but the three whose actions are other
// tools' calls (sequence: its steps take it; run_agent_task and ai_action: the model picks the
// calls). Absent, it costs nothing: the task runs as it did without.
type Behaviour struct {
	// PreMarkOperation saves the screen each gesture acts on, its target drawn on it, into the
	// screenshot store; the result names them (markedScreenshots).
	// Like the other common arguments (serial, lease, ...) it is described once, in the
	// server's instructions, not in each of the 39 tools' schemas: tools/list is paid for in
	// every agent's context.
	PreMarkOperation bool `json:"pre_mark_operation,omitempty"`
	// AntiRisk makes touches human-like where a platform has fingers (android, ios): points
	// and timing varied a little (humantouch.go). Elsewhere it is accepted and reported not
	// applicable.
	AntiRisk bool `json:"anti_risk,omitempty"`
	// The other four general options: taken, unlisted, used only by the tools that declare or
	// read them (seedopts.go).
	seedOptions
}

// behaviourArgs are the names of Behaviour's arguments.
var behaviourArgs = []string{"pre_mark_operation", "anti_risk"}

// behaviour is b's own two parameters: the general options it carries change no gesture.
func (b Behaviour) behaviour() Behaviour {
	return Behaviour{PreMarkOperation: b.PreMarkOperation, AntiRisk: b.AntiRisk}
}

// behaved is an argument struct that embeds Behaviour.
type behaved interface{ behaviour() Behaviour }

// BehaviourResult is what the behaviour parameters did, added to the action's structured
// result when either was given.
type BehaviourResult struct {
	// MarkedScreenshots are the marked screens kept (pre_mark_operation), in the order acted
	// on: get_task_result's markedScreenshots shows them.
	MarkedScreenshots []string `json:"markedScreenshots,omitempty" jsonschema:"The marked screens kept (pre_mark_operation); get_task_result shows them"`
	// AntiRisk says what anti_risk did: "applied to N touches", or why it did not apply.
	AntiRisk string `json:"antiRisk,omitempty" jsonschema:"What anti_risk did: applied to N touches, or why not"`
}

// antiRiskPlatforms are the platforms whose touches are a finger's, where anti-fraud checks
// look at how they land.
var antiRiskPlatforms = []string{device.PlatformAndroid, device.PlatformIOS}

// acting is a task's behaviour while it runs: what its gestures marked and varied.
type acting struct {
	Behaviour
	human bool        // anti_risk, on a platform with fingers
	size  device.Size // the screen's, once asked
	// aim is the box, in screen pixels, of what the next gesture acts on (a bbox), drawn
	// around its mark; empty for none.
	aim     image.Rectangle
	marks   [][]byte // marked screens, JPEG, at most maxMarks (mark.go)
	touches int      // gestures made human-like
}

// behave runs run with the task's gestures made as b asks, then saves their marks and adds
// what b did to the result.
func behave(ctx context.Context, t *Task, tool string, b Behaviour, run func(context.Context, *Task) (Output, error)) (Output, error) {
	act := &acting{Behaviour: b, human: b.AntiRisk && slices.Contains(antiRiskPlatforms, t.Driver.Info().Platform)}
	tt := *t
	tt.act = act
	out, err := run(ctx, &tt)
	if err != nil {
		return out, err // a failed task's record keeps no result to name its marks in
	}
	res := BehaviourResult{MarkedScreenshots: keepMarks(ctx, &tt, act.marks)}
	switch {
	case !b.AntiRisk:
	case !act.human:
		res.AntiRisk = "not applicable on " + t.Driver.Info().Platform
	case act.touches == 0:
		res.AntiRisk = "not applicable to " + tool + ": no touch was made"
	default:
		res.AntiRisk = fmt.Sprintf("applied to %d touches", act.touches)
	}
	if out.Data, err = withFields(out.Data, res); err != nil {
		return Output{}, err
	}
	if out.Record != nil { // the record says what the behaviour did too
		if out.Record, err = withFields(out.Record, res); err != nil {
			return Output{}, err
		}
	}
	return out, nil
}

// withFields adds extra's fields to data, a result struct: its JSON object with extra's
// fields after its own.
func withFields(data any, extra BehaviourResult) (any, error) {
	if data == nil {
		return extra, nil
	}
	more, _ := json.Marshal(extra) // strings: it cannot fail
	if string(more) == "{}" {
		return data, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as the node encodes results (nodes/device.go)
	if err := enc.Encode(data); err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	own := bytes.TrimSpace(buf.Bytes())
	switch {
	case string(own) == "{}":
		return json.RawMessage(more), nil
	case len(own) < 2 || own[0] != '{':
		return nil, fmt.Errorf("result of %T is not a JSON object: its behaviour cannot be added", data)
	}
	return json.RawMessage(slices.Concat(own[:len(own)-1], []byte{','}, more[1:])), nil
}
