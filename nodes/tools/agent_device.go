package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
)

// agentImageWidth is how wide the screenshots an agent's model sees are at most (a 1080-wide
// phone's are halved): enough to read a phone's text, small for a model's context.
const agentImageWidth = 540

// agentTools are the tools an agent task's model may call: the sequence step tools (actions on
// the screen, keys, text, launching an app) and a wait. Looking is the loop's own (peek), and
// nothing long or destructive is offered.
var agentTools = sync.OnceValue(func() []string {
	names := append(SequenceTools(), "sleep_ms")
	slices.Sort(names)
	return names
})

// agentDevice is the device an agent task acts through: the catalog's tools, run on the task's
// driver as the node runs them, and peek's look at the screen.
type agentDevice struct {
	task *Task
	env  *Env
}

var _ agent.Device = agentDevice{}

// Tools are the agent tools the device can serve, with their input schemas.
func (d agentDevice) Tools() []model.Tool {
	var out []model.Tool
	for _, name := range agentTools() {
		t, ok := Lookup(name)
		if !ok || !t.servedBy(reflect.TypeOf(d.task.Driver)) {
			continue
		}
		props, required := t.InputSchema()
		for _, name := range behaviourArgs { // for scripts and people, not the model
			delete(props, name)
		}
		schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			schema["required"] = required
		}
		b, err := json.Marshal(schema)
		if err != nil {
			continue
		}
		out = append(out, model.Tool{Name: t.Name, Description: t.Description, Parameters: b})
	}
	return out
}

// Call runs one agent tool and returns its result as the model reads it.
func (d agentDevice) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	if !slices.Contains(agentTools(), name) {
		return "", fmt.Errorf("%s is not a tool of agent tasks; call one of the tools offered", name)
	}
	out, err := d.env.Ops[name].Run(ctx, &Task{ID: d.task.ID, Driver: d.task.Driver, Args: args, Env: d.env})
	if err != nil {
		return "", onTheDevice(err)
	}
	if msg := messageOf(out.Data); msg != "" {
		return msg, nil
	}
	b, err := json.Marshal(out.Data)
	return string(b), err
}

// Observe is peek: the screenshot, scaled for the model, and the element listing.
func (d agentDevice) Observe(ctx context.Context) (agent.Observation, error) {
	args, _ := json.Marshal(ImageArgs{MaxWidth: agentImageWidth})
	out, err := d.env.Ops["peek"].Run(ctx, &Task{ID: d.task.ID, Driver: d.task.Driver, Args: args, Env: d.env})
	if err != nil {
		return agent.Observation{}, err
	}
	res, _ := out.Data.(PeekResult)
	if out.Image == nil {
		return agent.Observation{}, errors.New("peek returned no screenshot")
	}
	img := out.Image
	jpg, err := EncodeJPEG(ctx, img, MaxImageBytes)
	if err != nil {
		return agent.Observation{}, err
	}
	b := img.Bounds()
	return agent.Observation{JPEG: jpg, Width: b.Dx(), Height: b.Dy(), Elements: res.Listing}, nil
}
