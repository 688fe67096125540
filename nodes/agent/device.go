package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// Device is what the agent acts through: the catalog's tools on one device.
type Device interface {
	// Tools are the device tools the model may call, by their catalog names, with JSON-schema parameters.
	Tools() []model.Tool
	// Call runs one tool with its JSON arguments and returns its result as text for the model; an error is a failed call (the model sees its message).
	// An error that is ErrBadArguments says the tool refused the arguments without acting: the model called it wrongly.
	// An error that is ErrDeviceFailed says the device itself failed (its driver's error, a rig halted): the task ends.
	Call(ctx context.Context, name string, args json.RawMessage) (string, error)
	// Observe looks at the screen: a JPEG (already scaled for the model) and the element listing (one line per element: `id [kind] "label" [l,t,r,b] conf`, bbox relative 0-1).
	Observe(ctx context.Context) (Observation, error)
}

// Observation is one look at the screen.
type Observation struct {
	JPEG          []byte
	Width, Height int
	Elements      string
}

// ErrBadArguments is what a Device's Call error is (errors.Is) when the tool refused its
// arguments (an unknown field, a value out of range) and the device did nothing: the model
// called the tool wrongly, which the agent counts as such rather than as an action.
var ErrBadArguments = errors.New("the tool refused its arguments")

// ErrDeviceFailed is what a Device's Call error is (errors.Is) when the device itself failed
// (its driver's error, a rig halted or in alarm), not the model's call: no other call helps
// until the device is seen to, so the task ends, failed on the device (FailureDevice).
var ErrDeviceFailed = errors.New("the device failed")
