package agent

import (
	"context"
	"errors"
	"unicode/utf8"
)

// What ended a task, as the logs name it. An error's text may quote the model, whose words
// may repeat the goal (a password the user gave to type): the logs carry only its kind and
// length, and the task's record keeps the text for its caller.
const (
	failSetup      = "setup"        // no goal, model or device
	failDevice     = "device"       // the screen could not be read, or a call failed on the device (ErrDeviceFailed)
	failModel      = "model"        // a model call failed
	failBudget     = "budget"       // actions or tokens ran out
	failLoop       = "loop"         // the same action on the same screen, again
	failNoPlan     = "no_plan"      // no usable plan, twice
	failNoToolCall = "no_tool_call" // text instead of a tool call, twice
	failWrongCalls = "wrong_calls"  // calls that could not run, turn after turn
	failStep       = "step_failed"  // the model gave a step up
	failTimedOut   = "timed_out"
	failAborted    = "aborted"
	failStopped    = "stopped" // its node stopped, or its device went away (failingCause)
	failOther      = "other"
)

// FailureDevice is Task.Failure for a task its device ended: the screen could not be read, or a
// call failed on the device itself (ErrDeviceFailed); Task.Cause is then the device's error.
const FailureDevice = failDevice

// failure is an error with its kind, for the logs; its text is err's.
type failure struct {
	kind string
	err  error
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// failed gives err its kind (nil stays nil).
func failed(kind string, err error) error {
	if err == nil {
		return nil
	}
	return &failure{kind: kind, err: err}
}

// failureKind names what ended a task with err ("" for none): the end of ctx first, then the
// outermost kind err was given.
func failureKind(ctx context.Context, err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return failTimedOut
	case ctx.Err() != nil && failingCause(ctx) != nil:
		return failStopped
	case ctx.Err() != nil:
		return failAborted
	}
	return kindOf(err)
}

// kindOf is the outermost kind err was given, or failOther.
func kindOf(err error) string {
	if f := (*failure)(nil); errors.As(err, &f) {
		return f.kind
	}
	return failOther
}

// runes is the length of s as the logs give it.
func runes(s string) int { return utf8.RuneCountInString(s) }
