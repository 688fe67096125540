package grbl

import (
	"context"
	"fmt"
	"time"
)

// EventKind says what an Event reports.
type EventKind int

const (
	// EventState: the machine state (or its substate) changed; From is the old state.
	EventState EventKind = iota + 1
	// EventAlarm: GRBL pushed ALARM:N; Alarm holds it.
	EventAlarm
	// EventMessage: GRBL pushed [MSG:…]; Text holds what is inside.
	EventMessage
	// EventReset: the controller greeted again after a reset (asked for or not); Text is
	// the welcome. Lines in flight failed with ErrReset; the finger is up (a reset stops
	// the spindle).
	EventReset
	// EventLinkLost: the link died (Err); the channel closes after it.
	EventLinkLost
)

func (k EventKind) String() string {
	switch k {
	case EventState:
		return "state"
	case EventAlarm:
		return "alarm"
	case EventMessage:
		return "message"
	case EventReset:
		return "reset"
	case EventLinkLost:
		return "link lost"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is something the controller did or said without being asked.
type Event struct {
	Kind   EventKind
	At     time.Time
	Status Status // the status once the event is taken in
	From   State  // EventState: the state before
	Alarm  *Alarm // EventAlarm
	Text   string // EventMessage, EventReset
	Err    error  // EventLinkLost
}

// Subscribe returns a channel of events, buffered for n, and a function that ends the
// subscription. Events are never waited for: when the buffer is full, the event is dropped
// (a subscriber that must not miss an alarm reads promptly or sizes n). The channel closes
// when the client dies or the subscription ends.
func (c *Client) Subscribe(n int) (<-chan Event, func()) {
	ch := make(chan Event, max(n, 1))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs == nil { // dead
		close(ch)
		return ch, func() {}
	}
	c.subs[ch] = struct{}{}
	return ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if _, ok := c.subs[ch]; ok {
			delete(c.subs, ch)
			close(ch)
		}
	}
}

// emit hands an event to every subscriber that has room. Called with c.mu held.
func (c *Client) emit(e Event) {
	for ch := range c.subs {
		select {
		case ch <- e:
		default:
			c.log.Warn("grbl event dropped: subscriber full", "port", c.port, "event", e.Kind.String())
		}
	}
}

// Status returns the latest status (State is StateUnknown right after a reset, until the
// next report).
func (c *Client) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

// WaitFor waits for a status that satisfies cond, taking only what arrives after the call
// (it asks for a report at once): a status from before a move was queued cannot satisfy it.
// Alarms and resets count as news too. It returns the status that did.
func (c *Client) WaitFor(ctx context.Context, cond func(Status) bool) (Status, error) {
	c.mu.Lock()
	seq0 := c.seq
	c.mu.Unlock()
	if err := c.realtime("status", cmdStatus); err != nil {
		return Status{}, err
	}
	for {
		c.mu.Lock()
		st, seq, ch, err := c.st, c.seq, c.stCh, c.err
		c.mu.Unlock()
		if err != nil {
			return st, err
		}
		if seq > seq0 && cond(st) {
			return st, nil
		}
		select {
		case <-ch:
		case <-c.dead:
		case <-ctx.Done():
			return st, &OpError{Port: c.port, Op: "wait for status", Err: ctx.Err(),
				Hint: fmt.Sprintf("the machine is %s", describe(st))}
		}
	}
}

// WaitIdle waits until the machine is idle with nothing queued. It fails with the *Alarm
// when the machine is or goes into alarm state. After a queued move, Barrier is the
// exact way to know it is done; WaitIdle then confirms the state.
func (c *Client) WaitIdle(ctx context.Context) (Status, error) {
	st, err := c.WaitFor(ctx, func(s Status) bool {
		if s.State == StateAlarm {
			return true
		}
		return s.State == StateIdle && (s.Buf == nil || int64(s.Buf.Planner) >= c.maxPlanner.Load())
	})
	if err == nil && st.State == StateAlarm {
		err = &OpError{Port: c.port, Op: "wait idle", Err: &Alarm{Code: st.Alarm}}
	}
	return st, err
}

func describe(s Status) string {
	if s.State == StateUnknown {
		return "in an unknown state"
	}
	st := string(s.State)
	if s.Sub >= 0 {
		st += fmt.Sprintf(":%d", s.Sub)
	}
	return fmt.Sprintf("%s at X%.3f Y%.3f Z%.3f", st, s.MPos.X, s.MPos.Y, s.MPos.Z)
}
