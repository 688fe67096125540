package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// waitClock is an Options.Clock that stands still until moved: the model's thinking and a
// sleep_ms move it by a known amount, so an action's wait is exact.
type waitClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *waitClock) read() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *waitClock) move(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// sleepyPhone is the test phone with the catalog's sleep_ms, which passes on the clock.
type sleepyPhone struct {
	phone
	clock *waitClock
}

func (p sleepyPhone) Tools() []model.Tool {
	return append(p.phone.Tools(), model.Tool{Name: "sleep_ms", Description: "Wait",
		Parameters: json.RawMessage(`{"type":"object","properties":{"milliseconds":{"type":"integer"}},"required":["milliseconds"]}`)})
}

func (p sleepyPhone) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	if name != "sleep_ms" {
		return p.phone.Call(ctx, name, args)
	}
	var a struct{ Milliseconds int64 }
	if err := json.Unmarshal(args, &a); err != nil {
		return "", err
	}
	p.clock.move(time.Duration(a.Milliseconds) * time.Millisecond)
	return fmt.Sprintf("slept %d ms", a.Milliseconds), nil
}

// An action's wait is the time from the previous action's end to its start: after the agent's
// own sleep_ms 1200, a swipe the model took 300 ms to choose waited 300 ms, not 1500 (the
// replay of an export sleeps 1200 ms, then waits again for the swipe's wait).
func TestActionWaitIsFromThePreviousActionsEnd(t *testing.T) {
	clock := &waitClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	thinks := func(d time.Duration, turn modelsim.Turn) modelsim.Turn {
		return modelsim.Turn{Reply: func(modelsim.Request) modelsim.Turn { clock.move(d); return turn }}
	}
	r := newRig(t,
		plan(step{Title: "Scroll after a pause"}),
		thinks(200*time.Millisecond, call("sleep_ms", map[string]int{"milliseconds": 1200})),
		thinks(300*time.Millisecond, call("swipe_direction", map[string]string{"direction": "up"})),
		finished("scrolled"),
	)
	o := r.options("scroll after a pause")
	o.Device, o.Clock = sleepyPhone{r.phone, clock}, clock.read
	task := run(t, t.Context(), o)
	wantStatus(t, task, agent.StatusFinished)
	var got []string
	for _, a := range task.Actions {
		got = append(got, fmt.Sprintf("%s %d", a.Tool, a.WaitMS))
	}
	if want := []string{"sleep_ms 0", "swipe_direction 300"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("actions and their waits %q, want %q", got, want)
	}
}
