package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// modelWait is a model call that the task's end cut short: the model had not answered.
type modelWait struct {
	err    error // the model's error: it names the model and its endpoint, never the key
	waited time.Duration
}

func (e *modelWait) Error() string { return "model call: " + e.err.Error() }
func (e *modelWait) Unwrap() error { return e.err }

// explain says that the task ended waiting for the model, which one, for how long, and what
// to do. When the deadline was the caller's own time limit (limit, else nil), the model may just
// be slower than that limit allows: a larger one is the remedy. Otherwise (the node's deadline,
// long past any answer a working model gives) more time rarely helps a model that answers
// nothing: a hung server needs looking at.
func (e *modelWait) explain(limit *TimeLimit) string {
	// The model client says which model at which endpoint; its own advice (more time) is not
	// what a hung server needs, so only the part up to the context's error is kept.
	who, _, _ := strings.Cut(e.err.Error(), ": "+context.DeadlineExceeded.Error())
	waited := e.waited.Round(100 * time.Millisecond)
	if limit != nil {
		who, _, _ = strings.Cut(who, " did not answer in time") // it may have been answering: it had not yet
		return fmt.Sprintf("waiting for the model: %s had not answered when the task's %s of %s ran out (its call waited %s): "+
			"pass a larger %s, or use a faster model", who, limit.Arg, limit.D, waited, limit.Arg)
	}
	return fmt.Sprintf("waiting for the model: %s (its call waited %s): check that the model server is up "+
		"and answering (its logs; a hung server needs a restart, more time will not help it), or use a faster model",
		who, waited)
}

// timeLimitOf is the caller's time limit that ended ctx, if that is what did: ctx's cause, else
// limit (Options.Limit) when ctx's deadline passed.
func timeLimitOf(ctx context.Context, limit *TimeLimit) *TimeLimit {
	var l TimeLimit
	if errors.As(context.Cause(ctx), &l) {
		return &l
	}
	if limit != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return limit
	}
	return nil
}
