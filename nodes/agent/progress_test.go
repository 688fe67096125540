package agent_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
)

func notesRig(t *testing.T) *rig {
	return newRig(t,
		plan(step{Title: "Open Notes"}, step{Title: "Type"}),
		tapLabel("Notes"),
		stepDone("success", "Notes is open"),
		call("input", map[string]string{"text": "hi"}),
		stepDone("success", "typed"),
		finished("The note says hi"),
	)
}

func TestPanickingProgressDoesNotStopTheTask(t *testing.T) {
	t.Parallel()
	r := notesRig(t)
	var calls atomic.Int32
	o := r.options("Write hi in Notes")
	o.Progress = func(agent.Event) {
		calls.Add(1)
		panic("the MCP session is gone")
	}
	task := run(t, context.Background(), o)

	wantStatus(t, task, agent.StatusFinished)
	if r.phone.Note() != "hi" {
		t.Errorf("note %q", r.phone.Note())
	}
	// Every event still reached the callback: one panic does not silence the rest.
	waitFor(t, "all events offered", func() bool { return calls.Load() == 10 })
}

func TestBlockingProgressDoesNotStopTheTask(t *testing.T) {
	t.Parallel()
	r := notesRig(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var calls atomic.Int32
	o := r.options("Write hi in Notes")
	o.Progress = func(agent.Event) {
		calls.Add(1)
		<-release // a client that stopped reading
	}
	task := run(t, context.Background(), o)

	wantStatus(t, task, agent.StatusFinished)
	if r.phone.Note() != "hi" || calls.Load() != 1 {
		t.Errorf("note %q, callback entered %d times, want once (it never returned)", r.phone.Note(), calls.Load())
	}
}
