package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// QA: `corral call sleep '{"serial":S,"seconds":8}' &` then, within 2 s, `corral call
// get_latest_task '{"anyTool":true}'` named the call before the sleep (a succeeded
// get_screen_size), not the running sleep: each corral call without --gateway runs its own
// gateway, which kept its call in flight in memory only, and docs/clients.md tells a caller
// that lost its connection to check get_latest_task before calling again. The first call's
// task is its holder's latest in NATS once it reaches its node: another corral call, and a
// gateway serving the same holder, see it running (or waiting in the device's queue), then
// how it ended.
func TestCallLatestTaskSeesAnotherCallsTaskInFlight(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	nats := []string{"--nats-url", f.URL, "--log-level", "error"}
	call := func(tool, args string) []string { return append(append([]string{}, nats...), tool, args) }
	captureStdout(t, func() { require.NoError(t, runCall(t.Context(), call("get_screen_size", `{"serial":"`+serial+`"}`))) })
	gateway := f.Client(cliClientName) // another gateway, where the CLI's holder is this client's
	latest := func(through string) mcp.TaskRecordResult {
		t.Helper()
		var rec mcp.TaskRecordResult
		if through == "gateway" {
			farmtest.Structured(t, farmtest.MustCall(t, gateway, "get_latest_task", map[string]any{"anyTool": true}), &rec)
			return rec
		}
		out := captureStdout(t, func() { require.NoError(t, runCall(t.Context(), call("get_latest_task", `{"anyTool":true}`))) })
		require.NoError(t, json.NewDecoder(strings.NewReader(out)).Decode(&rec), "corral call get_latest_task printed %q", out)
		return rec
	}
	ended := func(what string, errs chan error) {
		t.Helper()
		select {
		case err := <-errs:
			require.NoError(t, err, what)
		case <-time.After(60 * time.Second):
			t.Fatalf("%s did not end", what)
		}
	}

	// Running: 15 s leaves a loaded machine time for a corral call to read it before it ends
	// (the first call prints its answer then, to the stdout the read captures).
	sleeping := make(chan error, 1)
	go func() { sleeping <- runCall(t.Context(), call("sleep", `{"serial":"`+serial+`","seconds":15}`)) }()
	id := runningTaskOn(t, f, serial)
	for _, through := range []string{"corral call", "gateway"} {
		rec := latest(through)
		assert.Equal(t, id, rec.TaskID, "%s: the running sleep is the latest: %+v", through, rec)
		assert.Equal(t, "running", rec.Outcome, through)
		assert.Equal(t, "sleep", rec.Tool, through)
		assert.False(t, rec.Started.IsZero(), "%s: it started: %+v", through, rec)
	}
	ended("the sleep", sleeping)
	farmtest.Eventually(t, 20*time.Second, func() bool { return latest("gateway").Outcome == "succeeded" }, "the sleep's record")
	rec := latest("corral call")
	assert.Equal(t, id, rec.TaskID, "the ended sleep is the latest: %+v", rec)
	assert.Equal(t, "succeeded", rec.Outcome)

	// Waiting in the queue of a device another holds: running, not started.
	var held struct {
		Lease struct {
			Handle string `json:"handle"`
		} `json:"lease"`
	}
	holder := f.Client("holder")
	farmtest.Structured(t, farmtest.MustCall(t, holder, "acquire_device", map[string]any{"serial": serial}), &held)
	waiting := make(chan error, 1)
	go func() { waiting <- runCall(t.Context(), call("home", `{"serial":"`+serial+`","wait_seconds":60}`)) }()
	farmtest.Eventually(t, 20*time.Second, func() bool { return latest("gateway").TaskID != id }, "the queued home is the latest")
	for _, through := range []string{"corral call", "gateway"} {
		rec := latest(through)
		assert.Equal(t, "running", rec.Outcome, "%s: the queued home: %+v", through, rec)
		assert.True(t, rec.Started.IsZero(), "%s: the queued home has not started: %+v", through, rec)
		assert.Contains(t, rec.Message, "waits in device "+serial+"'s queue", through)
	}
	queued := latest("gateway").TaskID
	farmtest.MustCall(t, holder, "release_device", map[string]any{"serial": serial, "lease": held.Lease.Handle})
	ended("the home", waiting)
	farmtest.Eventually(t, 20*time.Second, func() bool { return latest("gateway").Outcome == "succeeded" }, "the home's record")
	rec = latest("corral call")
	assert.Equal(t, queued, rec.TaskID, "the ended home is the latest: %+v", rec)
	assert.Equal(t, "home", rec.Tool)
	assert.Equal(t, "succeeded", rec.Outcome)
}
