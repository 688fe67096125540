package console

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A busy refusal's text advises an MCP client (call acquire_device with wait_seconds, pass
// wait_seconds on this call) in UTC. A person at the console can do neither: the console says
// who has the device and until when, and the page shows those times in the browser's own zone.

// busyView is what the console knows of who has a busy device, for the page.
type busyView struct {
	Holder string `json:"holder,omitempty"`
	// Until and Max: the lease's idle expiry and its hard end.
	Until time.Time `json:"until,omitzero"`
	Max   time.Time `json:"max,omitzero"`
	// Task runs without a lease until TaskEnds at the latest, and should end at TaskExpected
	// when its tool could tell (a sleep's length; broker.RunningTask.Expected).
	Task         string    `json:"task,omitempty"`
	TaskEnds     time.Time `json:"task_ends,omitzero"`
	TaskExpected time.Time `json:"task_expected,omitzero"`
	Waiting      int       `json:"waiting"`
}

// busyOf is who has serial now, as the registry and its node's lease list say.
func (c *Console) busyOf(ctx context.Context, serial string) busyView {
	var b busyView
	d, ok := c.cfg.Farm.Device(serial)
	if !ok {
		return b
	}
	b.Holder = d.Holder
	if t := d.Task; t != nil && t.Implicit {
		b.Task, b.TaskEnds, b.TaskExpected = t.Tool, t.Deadline, t.Expected
		if t.Holder != nil {
			b.Holder = t.Holder.String()
		}
		return b
	}
	c.leases.expire() // a busy answer is news: the lease may be newer than the cache
	leases, _ := c.leases.get(ctx)
	if l, ok := leases[serial]; ok && l.Node == d.Node {
		b.Holder, b.Until, b.Max, b.Waiting = l.Holder.String(), l.ExpiresAt, l.MaxUntil, l.QueueLen
	}
	return b
}

// known reports whether b tells who has the device: the registry or the leases may not show it
// yet (or any more) when a busy refusal comes.
func (b busyView) known() bool { return b.Holder != "" || b.Task != "" || !b.Until.IsZero() }

// busyMessage says it for clients without the page's script (which words it with local times).
func busyMessage(serial string, b busyView) string {
	at := func(t time.Time) string { return t.UTC().Format(time.TimeOnly) + " UTC" }
	who := b.Holder
	if who == "" {
		who = "someone"
	}
	left, expected := broker.ExpectedLeft(b.TaskExpected, time.Now())
	switch {
	case b.Task != "" && expected:
		return fmt.Sprintf("%s is busy: %s is running %s on it without a lease, for about %s more. Try again later.", serial, who, b.Task, left)
	case b.Task != "":
		return fmt.Sprintf("%s is busy: %s is running %s on it without a lease, until %s at the latest. Try again later.", serial, who, b.Task, at(b.TaskEnds))
	case !b.Until.IsZero():
		return fmt.Sprintf("%s is busy: held by %s until %s (at the latest %s); %d waiting. Try again later, or ask %s to release it.",
			serial, who, at(b.Until), at(b.Max), b.Waiting, who)
	}
	return fmt.Sprintf("%s is busy: %s is using it. Try again later, or ask them to release it.", serial, who)
}
