package agent

import (
	"context"
	"errors"
)

// failing is a cancellation cause that ends a task as failed rather than aborted: the node
// stopping under it, or its device going away (actors' causes say which). The task's report and
// status then say failed, as its record's outcome does.
type failing interface {
	error
	Failing() bool
}

// failingCause is ctx's cause if it ends the task as failed, else nil.
func failingCause(ctx context.Context) error {
	var f failing
	if errors.As(context.Cause(ctx), &f) && f.Failing() {
		return f
	}
	return nil
}
