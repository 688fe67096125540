package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// runOp runs the named op of DefaultOps on d with args.
func runOp(t *testing.T, name string, d device.Driver, args string) (Output, error) {
	t.Helper()
	op, ok := DefaultOps()[name]
	if !ok {
		t.Fatalf("no op %q", name)
	}
	return op.Run(context.Background(), &Task{Driver: d, Args: json.RawMessage(args)})
}

// mustRun runs an op that must succeed and returns its data as a JSON object.
func mustRun(t *testing.T, name string, d device.Driver, args string) map[string]any {
	t.Helper()
	out, err := runOp(t, name, d, args)
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	b, err := json.Marshal(out.Data)
	if err != nil {
		t.Fatalf("%s: encode data: %v", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: data is not an object: %s", name, b)
	}
	return m
}

// wantCode checks that err carries code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s error, got none", code)
	}
	if got := ErrorCode(err); got != code {
		t.Fatalf("want code %s, got %s (%v)", code, got, err)
	}
}

func TestErrorCodeOfDriverError(t *testing.T) {
	if got := ErrorCode(errors.Join(errDriver)); got != broker.CodeDriver {
		t.Fatalf("driver error code: %s", got)
	}
}

// A driver's error that is the caller's mistake (device.ErrBadInput) or a selector matching
// nothing (device.ErrNoElement) is not the driver's failure.
func TestErrorCodeOfTheCallersMistakes(t *testing.T) {
	wrapped := func(err error) error {
		return &device.Error{Kind: "web", Serial: "w", Op: "op", Err: fmt.Errorf("x: %w", err)}
	}
	for err, want := range map[error]string{
		wrapped(device.ErrBadInput):  broker.CodeBadInput,
		wrapped(device.ErrNoElement): broker.CodeNotFound,
		wrapped(errDriver):           broker.CodeDriver,
	} {
		if got := ErrorCode(err); got != want {
			t.Errorf("ErrorCode(%v) = %s, want %s", err, got, want)
		}
	}
}
