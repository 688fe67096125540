// Package ctxtest has contexts for tests of work that must stop when its task's context ends.
package ctxtest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// ErrTaskDeadline is the cause an EndsAfter context ends with, as the scheduler's deadline
// ends a task's context with a cause.
var ErrTaskDeadline = errors.New("the task's deadline passed")

// Never is n for an EndsAfter that does not end: it counts the looks of a whole work.
const Never = 1 << 62

// EndsAfter is a task's context whose deadline passes at its n+1th look (Err), wherever the
// work is then: work that stops once ctx is done is cut part way, whatever the machine's speed.
type EndsAfter struct {
	context.Context
	cancel context.CancelCauseFunc
	looks  atomic.Int64
	n      int64
}

// New is an EndsAfter ending at look n+1, released when t ends.
func New(t testing.TB, n int64) *EndsAfter {
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	return &EndsAfter{Context: ctx, cancel: cancel, n: n}
}

// Err counts a look and ends the context with ErrTaskDeadline past the nth.
func (c *EndsAfter) Err() error {
	if c.looks.Add(1) > c.n {
		c.cancel(ErrTaskDeadline)
	}
	return c.Context.Err()
}

// Looks is how many times the work looked at the context so far.
func (c *EndsAfter) Looks() int64 { return c.looks.Load() }
