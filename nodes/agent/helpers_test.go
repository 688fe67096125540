package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// rig is one test's model server, client, phone and progress log.
type rig struct {
	srv    *modelsim.Server
	client model.Chatter
	phone  phone
	events *events
}

func newRig(t *testing.T, script ...modelsim.Turn) *rig {
	t.Helper()
	srv := modelsim.New(script...)
	t.Cleanup(srv.Close)
	c, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "modelsim"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{srv: srv, client: c, phone: newPhone(t), events: &events{}}
}

// options are the rig's defaults for goal.
func (r *rig) options(goal string) agent.Options {
	return agent.Options{Goal: goal, Model: r.client, Device: r.phone, Progress: r.events.add}
}

// run runs o to its end; a Run that hangs fails the test rather than the whole binary.
func run(t *testing.T, ctx context.Context, o agent.Options) *agent.Task {
	t.Helper()
	done := make(chan *agent.Task, 1)
	go func() { done <- agent.Run(ctx, o) }()
	select {
	case task := <-done:
		return task
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not return within 60s")
		return nil
	}
}

func wantStatus(t *testing.T, task *agent.Task, status string) {
	t.Helper()
	if task.Status != status {
		t.Fatalf("status %q, want %q (error %q)\n%s", task.Status, status, task.Error, task.Markdown())
	}
}

func wantStepStatuses(t *testing.T, task *agent.Task, want ...string) {
	t.Helper()
	var got []string
	for _, s := range task.Steps {
		got = append(got, s.Status)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("step statuses %v, want %v", got, want)
	}
}

// waitFor polls cond until it holds, failing the test after 10s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10s: %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
}

// events collects progress events.
type events struct {
	mu   sync.Mutex
	list []agent.Event
}

func (e *events) add(ev agent.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev)
}

func (e *events) all() []agent.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

func (e *events) kinds() []string {
	var out []string
	for _, ev := range e.all() {
		out = append(out, ev.Kind)
	}
	return out
}

// Scripted model turns.

func call(name string, args any) modelsim.Turn {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return modelsim.Call(modelsim.ToolCall{Name: name, Arguments: string(b)})
}

type step struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

func plan(steps ...step) modelsim.Turn { return call("plan", map[string]any{"steps": steps}) }

func stepDone(status, summary string) modelsim.Turn {
	return call("step_done", map[string]string{"status": status, "summary": summary})
}

func finished(content string) modelsim.Turn {
	return call("finished", map[string]string{"content": content})
}

func tapXY(x, y float64) modelsim.Turn { return call("tap_xy", map[string]float64{"x": x, "y": y}) }

// tapLabel taps the element labelled label in the listing the request carried, saying so
// first, as a model that thinks aloud does.
func tapLabel(label string) modelsim.Turn {
	return modelsim.Turn{Reply: func(req modelsim.Request) modelsim.Turn {
		bbox, ok := req.BBox(label)
		if !ok {
			return modelsim.Say("I see no element " + strconv.Quote(label))
		}
		b, _ := json.Marshal(map[string]any{"bbox": bbox})
		return modelsim.Turn{Text: "I tap " + label + ".", ToolCalls: []modelsim.ToolCall{{Name: "tap", Arguments: string(b)}}}
	}}
}

// lastUser is the text of the last user message of req.
func lastUser(req modelsim.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Text
		}
	}
	return ""
}

func toolNames(req modelsim.Request) []string {
	var out []string
	for _, tl := range req.Tools {
		out = append(out, tl.Name)
	}
	return out
}
