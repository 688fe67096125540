package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/agent"
)

// QA: a streaming model's text that came while a previous event had just gone out (or a word
// still being written) waited for the model's next piece: with a slow model, the first sign of
// life came one pause late. TestStreamedThinkingShowsWhatCameWhileTheModelPauses holds the model
// after its first piece of text, part of a word, until the test has seen that piece as thinking.
func TestStreamedThinkingShowsWhatCameWhileTheModelPauses(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(hold) }) }
	slow := thinkAloud("Go to the middle of the screen and tap it.")
	slow.Hold = hold // after its first piece, "Go to": the model may still be writing "to…"
	r := newStreamingRig(t,
		plan(step{Title: "Tap the middle"}),
		slow,
		stepDone("success", "tapped"),
		finished("tapped"),
	)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *agent.Task, 1)
	go func() { done <- agent.Run(ctx, r.options("Tap the middle")) }()
	t.Cleanup(func() { // a failed wait: stop the task before the rig goes
		cancel()
		release()
		<-done
	})

	waitFor(t, "the paused answer's first piece shown as thinking before the model's next piece", func() bool {
		return strings.Join(thinkingSoFar(r, 1), " ") == "Go to"
	})
	release()
	select {
	case task := <-done:
		done <- task // for the cleanup
		wantStatus(t, task, agent.StatusFinished)
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not return within 60s of the model's release")
	}
	if got := strings.Join(thinkingSoFar(r, 1), ""); strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(slow.Text, " ", "") {
		t.Errorf("the thinking events say %q, want the answer's words once: %q", got, slow.Text)
	}
}

// thinkingSoFar is the text of step's thinking events sent yet.
func thinkingSoFar(r *rig, step int) []string {
	var out []string
	for _, ev := range r.events.all() {
		if ev.Kind == agent.EventThinking && ev.Step == step {
			out = append(out, strings.TrimPrefix(ev.Message, "💭 "))
		}
	}
	return out
}
