package agent

import (
	"context"
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
// to do. More time rarely helps a model that answers nothing: a hung server needs looking at.
func (e *modelWait) explain() string {
	// The model client says which model at which endpoint; its own advice (more time) is not
	// what a hung server needs, so only the part up to the context's error is kept.
	who, _, _ := strings.Cut(e.err.Error(), ": "+context.DeadlineExceeded.Error())
	return fmt.Sprintf("waiting for the model: %s (its call waited %s): check that the model server is up "+
		"and answering (its logs; a hung server needs a restart, more time will not help it), or use a faster model",
		who, e.waited.Round(100*time.Millisecond))
}
