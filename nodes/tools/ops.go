package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"sync/atomic"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// Op is one thing a node does on a device for a task: the node half of an MCP tool.
// The gateway validates arguments first; Run decodes them again and trusts nothing.
type Op struct {
	Name string
	// Timeout is the default deadline; a caller may ask for less, or more up to MaxTimeout.
	Timeout    time.Duration
	MaxTimeout time.Duration
	// Lasts is the Tool's (nil: the tool cannot tell how long a task takes).
	Lasts func(args json.RawMessage) time.Duration
	Run   func(ctx context.Context, t *Task) (Output, error)
	// Secrets returns the secret values in a task's arguments, which its record must not keep
	// (nil: none).
	Secrets func(args json.RawMessage) []string
}

// Task is what an Op gets: the device's driver, the arguments, a way to report progress, and
// the node's environment.
type Task struct {
	// ID is the task's id (broker.TaskRequest.ID): what get_task_result finds it by.
	ID       string
	Driver   device.Driver
	Args     json.RawMessage
	Progress func(done, total float64, msg string)
	// TimeoutMS is the caller's timeout_ms, which ctx's deadline is; 0: the tool's default.
	TimeoutMS int64
	// Env is the node's, configured once (DefaultOpsWith sets it); nil reads as an unconfigured
	// node's.
	Env *Env
	// act is how the task's gestures are made when it was given HttpRunner's behaviour
	// parameters (behaviour.go); nil: as asked, at no cost.
	act *acting
}

// Env is what ops reach of their node: its configuration and its own ops (a sequence's steps
// run with them, configured as they are on their own).
type Env struct {
	Config OpsConfig
	Ops    Ops
	dl     downloader
	// visionSeen is when a vision worker last answered (unix ns): a look at the screen asks
	// whether one listens first only when none did lately (visionReady).
	visionSeen atomic.Int64
}

// env returns the task's environment, an unconfigured node's when it has none.
func (t *Task) env() *Env {
	if t.Env == nil {
		return newEnv(OpsConfig{})
	}
	return t.Env
}

// newEnv returns the environment c configures; its Ops are every tool's, run in it.
func newEnv(c OpsConfig) *Env {
	env := &Env{Config: c, dl: c.downloader()}
	env.Ops = make(Ops)
	for _, t := range All() {
		env.Ops[t.Name] = t.op(env)
	}
	return env
}

// Output is an Op's result: Data becomes structuredContent, Text its summary; Image, when set,
// is sent as JPEG image content.
type Output struct {
	Data  any
	Text  string
	Image image.Image
	// JPEG is an image already encoded, within MaxImageBytes (a device's own, or strips
	// encoded while the frame arrived), sent as it is; Image must then be nil.
	JPEG []byte
	// PNG is the image as PNG (take_screenshot's, unless format jpeg), sent as it is; Image and JPEG
	// must then be nil.
	PNG []byte
	// Failure, when set, fails the task although it answers a result: an agent task that did
	// not reach its goal still answers its report. Its code is ErrorCode's when it is an
	// OpError, else none; one that is a context.DeadlineExceeded makes the task timed_out.
	Failure error
	// Record, when set, is what the task record keeps in place of Data: Data then holds what
	// only the caller may read (a login's answer: often a session token), which the operator
	// role and every principal allowed on the device would read in the record for 7 days.
	Record any
}

// FailureOutcome is the outcome and code of a task whose Output has Failure.
func FailureOutcome(err error) (outcome, code string) {
	outcome = broker.OutcomeFailed
	if errors.Is(err, context.DeadlineExceeded) {
		outcome = broker.OutcomeTimedOut
	}
	var oe *OpError
	if errors.As(err, &oe) {
		code = oe.Code
	}
	return outcome, code
}

// OpError is an error with a stable code (broker.Code*) and a hint an agent can act on.
type OpError struct {
	Code string
	Msg  string
	Err  error
}

func (e *OpError) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

func (e *OpError) Unwrap() error { return e.Err }

// BadInput reports arguments that are wrong; nothing ran on the device.
func BadInput(format string, a ...any) error {
	return &OpError{Code: broker.CodeBadInput, Msg: fmt.Sprintf(format, a...)}
}

// Unsupported reports that the device's driver lacks an ability.
func Unsupported(d device.Driver, ability string) error {
	return &OpError{Code: broker.CodeUnsupported, Msg: fmt.Sprintf(
		"device %s (%s) cannot %s; use a device whose platform supports it (see list_available_devices)",
		d.Info().Serial, d.Info().Platform, ability)}
}

// lacking reports that d lacks a, naming first what does the job on d instead, if anything.
func lacking(d device.Driver, a Ability) error {
	if a.Alternative == "" {
		return Unsupported(d, a.Doing)
	}
	return &OpError{Code: broker.CodeUnsupported, Msg: fmt.Sprintf(
		"device %s (%s) cannot %s; on it, %s; or use a device whose platform supports it (see list_available_devices)",
		d.Info().Serial, d.Info().Platform, a.Doing, a.Alternative)}
}

// ErrorCode returns the stable code of err, or driver_error. A driver marks the caller's
// mistakes with device.ErrBadInput, a selector that matches nothing with device.ErrNoElement,
// a device that cannot serve until a person sees to it with device.ErrUnavailable and one
// that lacks what the call needs with device.ErrUnsupported: those are not the driver's
// failures.
func ErrorCode(err error) string {
	var oe *OpError
	switch {
	case errors.As(err, &oe):
		return oe.Code
	case errors.Is(err, device.ErrBadInput):
		return broker.CodeBadInput
	case errors.Is(err, device.ErrNoElement):
		return broker.CodeNotFound
	case errors.Is(err, device.ErrUnavailable):
		return broker.CodeUnhealthy
	case errors.Is(err, device.ErrUnsupported):
		return broker.CodeUnsupported
	}
	return broker.CodeDriver
}

// DecodeArgs decodes raw into v strictly: unknown fields, trailing data and a null item in an
// array argument are errors. Then it
// checks the arguments against their tags (argschema.go), then with v's Check method if it has
// one (rules across fields).
func DecodeArgs(raw json.RawMessage, v any) error {
	if len(raw) != 0 && string(raw) != "{}" { // no arguments leave v as it is: no decoder needed
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return &OpError{Code: broker.CodeBadInput, Msg: "arguments", Err: advised(inObject(raw, inItem(err, v), v), v)} // ArgProblem reads err
		}
		if dec.More() {
			return BadInput("arguments: trailing data after the JSON object")
		}
		if err := nullItem(raw, v); err != nil {
			return BadInput("%v", err)
		}
	}
	if err := checkArgs(v); err != nil {
		return BadInput("%v", err)
	}
	if c, ok := v.(interface{ Check() error }); ok {
		if err := c.Check(); err != nil {
			return BadInput("%v", err)
		}
	}
	return nil
}

// Ops is the set of ops a node serves, by name.
type Ops map[string]Op
