package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// newStreamingRig is newRig with a client configured as --openai-stream configures it.
func newStreamingRig(t *testing.T, script ...modelsim.Turn) *rig {
	t.Helper()
	r := newRig(t, script...)
	c, err := model.NewClient(model.Config{BaseURL: r.srv.BaseURL(), Model: "modelsim", Stream: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.client = c
	return r
}

// thinkAloud is a long answer, said while tapping the middle of the screen.
func thinkAloud(text string) modelsim.Turn {
	return modelsim.Turn{Text: text, ToolCalls: []modelsim.ToolCall{{Name: "tap_xy", Arguments: `{"x":0.5,"y":0.5}`}}}
}

// longThought is some 1,100 characters of a model's reasoning: modelsim streams it in some
// 220 pieces.
var longThought = strings.Repeat("I look at the home screen and find the Settings icon in the second row, so I tap it. ", 13)

// manualClock is an Options.Clock that moves only by step, each time it is read.
type manualClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *manualClock) read() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

// thoughts returns the thinking events of step, in order, once the step has ended.
func thoughts(t *testing.T, r *rig, step int) []string {
	t.Helper()
	waitFor(t, "the step's end reported", func() bool {
		for _, ev := range r.events.all() {
			if ev.Kind == agent.EventStepEnd && ev.Step == step {
				return true
			}
		}
		return false
	})
	var out []string
	for _, ev := range r.events.all() {
		if ev.Kind == agent.EventThinking && ev.Step == step {
			out = append(out, strings.TrimPrefix(ev.Message, "💭 "))
		}
	}
	return out
}

// TestStreamedThinkingIsThrottled runs a task whose model streams a long answer: its text goes
// out as a handful of thinking events, in pieces of about thinkRunes, before the tool call it
// came with, the pieces whole words that join back into the answer, nothing said twice.
func TestStreamedThinkingIsThrottled(t *testing.T) {
	t.Parallel()
	r := newStreamingRig(t,
		plan(step{Title: "Open Settings"}),
		thinkAloud(longThought),
		stepDone("success", "Settings is open"),
		finished("Settings is open"),
	)
	o := r.options("Open Settings")
	o.Clock = (&manualClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}).read // stands still: pieces by size alone
	task := run(t, context.Background(), o)
	wantStatus(t, task, agent.StatusFinished)

	got := thoughts(t, r, 1)
	if len(got) < 4 || len(got) > 8 {
		t.Fatalf("%d thinking events for %d characters streamed in some 220 pieces, want a handful:\n%q",
			len(got), len(longThought), got)
	}
	for i, th := range got {
		if n := utf8.RuneCountInString(th); n > 300 || (i < len(got)-1 && n < 150) || strings.HasSuffix(th, "…") {
			t.Errorf("thinking event %d has %d runes, want about 200 (the last fewer), none cut: %q", i, n, th)
		}
	}
	if joined, want := strings.Join(got, " "), strings.TrimSpace(longThought); joined != want {
		t.Errorf("the thinking events say\n%q\nwant the answer, once, in whole words\n%q", joined, want)
	}
	kinds := r.events.kinds()
	wantKinds := []string{agent.EventPlanned, agent.EventStepStart}
	for range got {
		wantKinds = append(wantKinds, agent.EventThinking)
	}
	wantKinds = append(wantKinds, agent.EventToolCall, agent.EventToolResult, agent.EventStepEnd)
	if strings.Join(kinds, " ") != strings.Join(wantKinds, " ") {
		t.Errorf("event kinds\n%v, want\n%v", kinds, wantKinds)
	}
	for i, req := range r.srv.Requests() {
		if !req.Stream {
			t.Errorf("request %d was not streamed", i)
		}
	}
}

// TestStreamedThinkingEveryHalfSecond checks the other bound: a slow model's text waits at
// most thinkEvery for an event, even when little of it has come.
func TestStreamedThinkingEveryHalfSecond(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("tap it ", 20) // 140 runes in 28 pieces: never thinkRunes waiting
	r := newStreamingRig(t,
		plan(step{Title: "Open Settings"}),
		thinkAloud(text),
		stepDone("success", "done"),
		finished("done"),
	)
	o := r.options("Open Settings")
	// Each read of the clock is 100 ms on: a piece of text every 100 ms, as a slow model writes.
	o.Clock = (&manualClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), step: 100 * time.Millisecond}).read
	task := run(t, context.Background(), o)
	wantStatus(t, task, agent.StatusFinished)

	got := thoughts(t, r, 1)
	// One event per five pieces (500 ms), the last flushed: five or six, depending on where the
	// words end.
	if len(got) < 5 || len(got) > 7 {
		t.Fatalf("%d thinking events for 28 pieces 100 ms apart, want one every 500 ms:\n%q", len(got), got)
	}
	for i, th := range got {
		if n := utf8.RuneCountInString(th); n > 40 {
			t.Errorf("thinking event %d holds %d runes, more than 500 ms of text: %q", i, n, th)
		}
	}
	if joined := strings.Join(got, " "); joined != strings.TrimSpace(text) {
		t.Errorf("the thinking events say %q, want %q", joined, strings.TrimSpace(text))
	}
}

// TestStreamedToolCallArrivesWhole streams a tool call whose arguments come in some 100
// chunks: the phone gets them whole.
func TestStreamedToolCallArrivesWhole(t *testing.T) {
	t.Parallel()
	note := strings.Repeat("a long note, streamed in pieces; ", 15)
	r := newStreamingRig(t,
		plan(step{Title: "Write the note"}),
		tapLabel("Notes"),
		call("input", map[string]string{"text": note}),
		finished("done"),
	)
	task := run(t, context.Background(), r.options("Write a note"))

	wantStatus(t, task, agent.StatusFinished)
	if got := r.phone.Note(); got != note {
		t.Errorf("the note is %q, want %q: tool-call arguments were not put back together", got, note)
	}
	for i, req := range r.srv.Requests() {
		if !req.Stream {
			t.Errorf("request %d was not streamed", i)
		}
	}
	if task.Usage.TotalTokens == 0 {
		t.Errorf("no usage counted from the stream")
	}
	// Without streaming, text with a tool call is one thinking event, after the answer; with
	// it, the same words go out as they come, and not again.
	if got := thoughts(t, r, 1); len(got) != 1 || got[0] != "I tap Notes." {
		t.Errorf("thinking events %q, want the text said with the tap, once", got)
	}
}

// TestStreamCutMidAnswer drops the connection after part of an answer: that is a server
// error, retried once; the words that came before the cut went out as thinking.
func TestStreamCutMidAnswer(t *testing.T) {
	t.Parallel()
	cut := thinkAloud("I will tap the middle of the screen now.")
	cut.Cut = true
	r := newStreamingRig(t,
		plan(step{Title: "Tap"}),
		cut,
		thinkAloud("Tapping the middle."),
		stepDone("success", "tapped"),
		finished("tapped"),
	)
	task := run(t, context.Background(), r.options("Tap the middle"))
	wantStatus(t, task, agent.StatusFinished)
	if task.ModelCalls != 5 || r.phone.taps() != 1 {
		t.Errorf("%d model calls and %d taps, want 5 (one retried) and 1", task.ModelCalls, r.phone.taps())
	}
	if got := thoughts(t, r, 1); strings.Join(got, " ") != "I will tap the middle of the screen now. Tapping the middle." {
		t.Errorf("thinking events %q, want the cut answer's words, then the retry's", got)
	}

	// Cut twice: the task fails, saying why and what may help.
	r = newStreamingRig(t, plan(step{Title: "Tap"}), cut, cut)
	task = run(t, context.Background(), r.options("Tap the middle"))
	wantStatus(t, task, agent.StatusFailed)
	wantStepStatuses(t, task, agent.StepFailed)
	for _, says := range []string{"model call", "closed the connection mid-answer", "retrying may help"} {
		if !strings.Contains(task.Error, says) {
			t.Errorf("error %q does not say %q", task.Error, says)
		}
	}
	if task.ModelCalls != 3 || r.phone.taps() != 0 {
		t.Errorf("%d model calls and %d taps, want 3 and none", task.ModelCalls, r.phone.taps())
	}
}

// TestStreamedAnswerWithoutTools checks that a streaming model that calls no tools hears that
// its server may not stream tool calls.
func TestStreamedAnswerWithoutTools(t *testing.T) {
	t.Parallel()
	r := newStreamingRig(t,
		plan(step{Title: "Open Settings"}),
		modelsim.Say("I tap Settings."),
		modelsim.Say("Settings is open now."),
	)
	task := run(t, context.Background(), r.options("Open Settings"))
	wantStatus(t, task, agent.StatusFailed)
	if !strings.Contains(task.Error, "answered without calling a tool, twice") || !strings.Contains(task.Error, "turn --openai-stream off") {
		t.Errorf("error %q does not say to try without streaming", task.Error)
	}
	// The text it wrote went out as it came, though no tool call followed.
	if got := thoughts(t, r, 1); strings.Join(got, " ") != "I tap Settings. Settings is open now." {
		t.Errorf("thinking events %q", got)
	}
}
