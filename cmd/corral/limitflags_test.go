package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A --timeout that is not positive is refused, saying what to give, instead of being taken as
// the default (call, devices) or giving up at once with a raw "context deadline exceeded"
// (drain); so is a negative --since.
func TestDurationFlagsRefuseNonPositiveValues(t *testing.T) {
	for name, c := range map[string]struct {
		run  func() error
		want string
	}{
		"call 0":         {func() error { return runCall(t.Context(), []string{"--timeout", "0", "home", "{}"}) }, "--timeout 0s: give a positive duration, e.g. 30s or 5m, or leave --timeout out for what the call may take on its device"},
		"call -1s":       {func() error { return runCall(t.Context(), []string{"--timeout", "-1s", "home", "{}"}) }, "--timeout -1s: give a positive duration"},
		"devices -1s":    {func() error { return runDevices(t.Context(), []string{"--timeout", "-1s"}) }, "--timeout -1s: give a positive duration, e.g. 30s or 5m, or leave --timeout out for 2m0s"},
		"abort 0":        {func() error { return runAbort(t.Context(), []string{"s1", "--timeout", "0"}) }, "--timeout 0s: give a positive duration"},
		"drain 0":        {func() error { return runDrain(t.Context(), []string{"n1", "--timeout", "0"}) }, "--timeout 0s: give a positive duration, e.g. 30s or 5m, or leave --timeout out for 10m0s"},
		"release -5s":    {func() error { return runRelease(t.Context(), []string{"s1", "--force", "--timeout", "-5s"}) }, "--timeout -5s: give a positive duration"},
		"tasks since -1": {func() error { return runTasks(t.Context(), []string{"--since", "-1h"}) }, "--since -1h0m0s: give how far back to look as a positive duration, e.g. 1h"},
	} {
		err := c.run()
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), c.want, name)
		}
	}
	// From the environment, the refusal says where the value came from.
	t.Setenv("CORRAL_TIMEOUT", "0")
	err := runCall(t.Context(), []string{"home", "{}"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--timeout 0s: give a positive duration`)
	assert.Contains(t, err.Error(), `(--timeout came from CORRAL_TIMEOUT="0", not the command line)`)
}

// corral drain that has no answer within --timeout says it gave up, and why, not a
// bare "context deadline exceeded".
func TestDrainSaysItGaveUpAfterItsTimeout(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	node := f.Devices()[0].Node
	err := runDrain(t.Context(), []string{node, "--status", "--nats-url", f.URL, "--timeout", "1us", "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gave up after --timeout 1µs: ")
	assert.Contains(t, err.Error(), "raise --timeout")
}

// corral tasks --tool with a name no tool has is refused with the nearest name, before it reads
// the history (it would match no task); a tool's name reads it.
func TestTasksRefusesAnUnknownTool(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	var err error
	out := captureOutput(t, func() {
		err = runTasks(t.Context(), []string{"--nats-url", f.URL, "--tool", "tap_xz", "--log-level", "error"})
	})
	assert.ErrorContains(t, err, `--tool "tap_xz": did you mean "tap_xy"?`, out)
	out = captureOutput(t, func() {
		err = runTasks(t.Context(), []string{"--nats-url", f.URL, "--tool", "tap_xy", "--log-level", "error"})
	})
	require.NoError(t, err, out)
	assert.NotContains(t, out, "tap_xy\"?")
}
