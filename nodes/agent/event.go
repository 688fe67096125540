package agent

import (
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Event kinds, after the seed's lifecycle callbacks.
const (
	EventPlanned    = "planned"     // onPlanned: the plan
	EventStepStart  = "step_start"  // onStepStart
	EventThinking   = "thinking"    // the model's text that came with its tool calls, flushed before them; a streaming model's text as it writes, in pieces
	EventToolCall   = "tool_call"   // onToolCall
	EventToolResult = "tool_result" // onToolResult, cut to 300 characters
	EventStepEnd    = "step_end"    // onStepEnd: success, failed or skipped
	EventError      = "error"       // onError: the task failed or was aborted
)

// Event is one progress report, as the seed's onPlanned/onStepStart/onToolCall/onToolResult/onStepEnd/onError.
type Event struct {
	Kind    string // EventPlanned, EventStepStart, EventToolCall, EventToolResult, EventStepEnd, EventError, EventThinking
	Step    int    // 1-based, 0 for task-level events
	Message string // the human-readable line, in the seed's form
}

const (
	// maxQueued bounds the events waiting for a slow callback; beyond it they are dropped.
	maxQueued = 1000
	// drainGrace is how long Run waits at its end for queued events to be delivered: short,
	// since Run must return promptly after an abort.
	drainGrace = 100 * time.Millisecond
)

// reporter delivers events to the Progress callback from its own goroutine, in order, so
// the task never waits on the callback nor dies of its panic.
type reporter struct {
	fn  func(Event)
	log *slog.Logger

	mu       sync.Mutex
	queue    []Event
	stopping bool // no more events come; the deliverer exits once the queue is empty
	closed   bool // deliver nothing more
	dropped  int
	wake     chan struct{}
	done     chan struct{}
}

func newReporter(fn func(Event), log *slog.Logger) *reporter {
	r := &reporter{fn: fn, log: log, wake: make(chan struct{}, 1), done: make(chan struct{})}
	if fn == nil {
		close(r.done)
		return r
	}
	go r.deliver()
	return r
}

// emit queues ev; it never blocks.
func (r *reporter) emit(ev Event) {
	if r.fn == nil {
		return
	}
	r.mu.Lock()
	switch {
	case r.stopping:
	case len(r.queue) >= maxQueued:
		r.dropped++
	default:
		r.queue = append(r.queue, ev)
	}
	r.mu.Unlock()
	r.signal()
}

func (r *reporter) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *reporter) deliver() {
	defer close(r.done)
	for {
		r.mu.Lock()
		if r.closed || (r.stopping && len(r.queue) == 0) {
			r.mu.Unlock()
			return
		}
		if len(r.queue) == 0 {
			r.mu.Unlock()
			<-r.wake
			continue
		}
		ev := r.queue[0]
		r.queue = r.queue[1:]
		r.mu.Unlock()
		r.call(ev)
	}
}

// call runs the callback, surviving its panic.
func (r *reporter) call(ev Event) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Warn("agent progress callback panicked; the task goes on", "panic", p, "kind", ev.Kind)
		}
	}()
	r.fn(ev)
}

// close lets the queue drain for up to grace, then drops what is left.
func (r *reporter) close(grace time.Duration) {
	r.mu.Lock()
	r.stopping = true
	r.mu.Unlock()
	r.signal()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-r.done:
	case <-t.C:
	}
	r.mu.Lock()
	left, dropped := len(r.queue), r.dropped
	r.closed, r.queue = true, nil
	r.mu.Unlock()
	r.signal()
	if left+dropped > 0 {
		r.log.Warn("agent progress callback too slow: events dropped", "dropped", left+dropped)
	}
}

// argNames logs a tool call's argument names, sorted, never their values: a value may be what
// the user typed (a password into a field). It is parsed only if the line is logged.
type argNames json.RawMessage

func (a argNames) LogValue() slog.Value {
	var m map[string]json.RawMessage
	if json.Unmarshal(a, &m) != nil {
		return slog.StringValue("(not an object)")
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return slog.AnyValue(names)
}
