package actors

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A task's deadline is its tool's default unless its caller asked for less: a 15 s sleep may
// run 61 minutes. Others refused busy for its device were told that hour. A tool that knows
// from its arguments how long a task takes (a sleep's length) says so, and the busy answers
// (holderNow; the gateway's and the console's, from broker.RunningTask.Expected) say when the
// device should be free.

// Lasting is a Device that can tell, for some tools, how long a task takes from its arguments.
type Lasting interface {
	// Lasts returns how long a task of tool with args takes; 0 when it cannot tell.
	Lasts(tool string, args json.RawMessage) time.Duration
}

// expectedEnd is when req, started at now under a deadline d from now, should end; zero when
// its tool cannot tell, or when that is not before the deadline (which then says it).
func expectedEnd(dev Device, req broker.TaskRequest, now time.Time, d time.Duration) time.Time {
	l, ok := dev.(Lasting)
	if !ok {
		return time.Time{}
	}
	if lasts := l.Lasts(req.Tool, req.Args); lasts > 0 && lasts < d {
		return now.Add(lasts)
	}
	return time.Time{}
}

// endsText says when t ends, for a refusal: "for about 12s more" when its tool told, else
// "until T at the latest", its deadline.
func (t *task) endsText(now time.Time) string {
	if left, ok := broker.ExpectedLeft(t.expected, now); ok {
		return fmt.Sprintf("for about %s more", left)
	}
	return "until " + stamp(t.deadline) + " at the latest"
}
