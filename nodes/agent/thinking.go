package agent

import (
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// A streaming model's text goes out as thinking events while the model writes, so a slow one
// (a local model takes 10–30 s a turn) shows signs of life; in pieces, not tokens, so a long
// answer makes a handful of events rather than hundreds.
const (
	// thinkEvery is the longest text waits for an event while more text comes.
	thinkEvery = 500 * time.Millisecond
	// thinkRunes of waiting text go out at once, whatever the time, so a piece still fits in
	// one event (eventRunes) when a fast model writes much in a moment.
	thinkRunes = 200
	// thinkIdle is how long the model may pause before what it wrote goes out, a word it is
	// still writing too (no sooner than thinkEvery after the previous event).
	thinkIdle = 250 * time.Millisecond
)

// streamer is a model that says whether it streams: model.Client does, from --openai-stream.
type streamer interface{ Streams() bool }

// streams says whether m sends its text in pieces as it writes, rather than once at the end.
func streams(m model.Chatter) bool {
	s, ok := m.(streamer)
	return ok && s.Streams()
}

// noToolsHint is what else to try when a model calls no tools: one that streams may have
// called them through a server that streams text but not tool calls. Only an answer of text
// and no call suggests that: a call that came through the stream says it streams them.
func (r *runner) noToolsHint(resp model.Response) string {
	if !r.live || len(resp.ToolCalls) > 0 || strings.TrimSpace(resp.Text) == "" {
		return ""
	}
	return "; or turn --openai-stream off: some servers stream text but not tool calls"
}

// thinking turns one answer's text deltas into thinking events of a step (0: the plan or the
// conclusion). delta and flush run on Run's goroutine (model.Request.OnDelta runs on the
// caller's); what waits while the model pauses goes out from a timer's (idle), hence mu.
type thinking struct {
	r    *runner
	step int

	mu      sync.Mutex
	pending string
	last    time.Time   // when the previous event went out, or the answer was asked for
	heard   time.Time   // when the last piece came
	idle    *time.Timer // sends what waits once the model pauses; nil until text waits
	done    bool        // flushed: the answer is in, its text all out
}

func (r *runner) newThinking(step int) *thinking {
	return &thinking{r: r, step: step, last: r.now()}
}

// delta takes the next piece of the answer's text, and sends what waits when it is due.
func (th *thinking) delta(text string) {
	th.mu.Lock()
	defer th.mu.Unlock()
	th.pending += text
	now := th.r.now()
	th.heard = now
	if utf8.RuneCountInString(th.pending) >= thinkRunes || now.Sub(th.last) >= thinkEvery {
		th.last = now
		th.send(false)
	}
	th.waitIdle(now)
}

// waitIdle has what waits sent once the model pauses thinkIdle, and no sooner than thinkEvery
// after the previous event: a slow model's text shows while it pauses, not when its next piece
// comes. The caller holds mu.
func (th *thinking) waitIdle(now time.Time) {
	if th.pending == "" {
		if th.idle != nil {
			th.idle.Stop()
		}
		return
	}
	due := max(th.last.Add(thinkEvery).Sub(now), thinkIdle)
	if th.idle == nil {
		th.idle = time.AfterFunc(due, th.paused)
		return
	}
	th.idle.Reset(due)
}

// paused sends what waits, a word being written too, when the model has said nothing since
// waitIdle: a piece that came meanwhile set a later time (by the task's clock, which a test may
// hold still).
func (th *thinking) paused() {
	th.mu.Lock()
	defer th.mu.Unlock()
	now := th.r.now()
	if th.done || now.Sub(th.heard) < thinkIdle || now.Sub(th.last) < thinkEvery {
		return
	}
	th.last = now
	th.send(true)
}

// flush sends whatever waits: the caller flushes once the answer is in, so its last words are
// not held back, and nothing goes out after.
func (th *thinking) flush() {
	th.mu.Lock()
	defer th.mu.Unlock()
	th.done = true
	if th.idle != nil {
		th.idle.Stop()
	}
	th.send(true)
}

// send emits the waiting text; unless all, only up to its last space, so an event does not end
// in the middle of a word the model is still writing. The caller holds mu.
func (th *thinking) send(all bool) {
	text := th.pending
	if i := strings.LastIndexFunc(text, unicode.IsSpace); !all && i > 0 {
		text = text[:i]
	}
	th.pending = th.pending[len(text):]
	if line := oneLine(th.r.scrub(text)); line != "" {
		th.r.emit(EventThinking, th.step, "💭 %s", cut(line, eventRunes))
	}
}
