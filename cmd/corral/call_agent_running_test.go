package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// hangingAgentFarm is a farm of phones whose agent tasks wait for their model (turns of them,
// one a task) until aborted.
func hangingAgentFarm(t *testing.T, phones, turns int) *farmtest.Farm {
	t.Helper()
	script := make([]modelsim.Turn, turns)
	for i := range script {
		script[i] = modelsim.Turn{Delay: time.Minute, Text: "too late"}
	}
	srv := modelsim.New(script...)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	return farmtest.Start(t, farmtest.Options{PhonesPerNode: phones, Model: m, Quiet: true})
}

// runningTaskOn is the id of the task the registry shows on serial, once it shows one.
func runningTaskOn(t *testing.T, f *farmtest.Farm, serial string) string {
	t.Helper()
	var id string
	farmtest.Eventually(t, 20*time.Second, func() bool {
		if d, ok := f.Gateway().Client.Device(serial); ok && d.Task != nil {
			id = d.Task.ID
		}
		return id != ""
	}, "the agent task running on "+serial)
	return id
}

// QA: corral call run_agent_task without --gateway that gave up (--timeout) said "get_task_result
// tells how it ended" without the task's id, and interrupted named corral tasks: neither said
// which task. Both name get_task_result of its id, a command line that reads its record.
func TestCallThatStopsWaitingForAnAgentTaskNamesItsRecord(t *testing.T) {
	f := hangingAgentFarm(t, 2, 2)
	nats := []string{"--nats-url", f.URL, "--log-level", "error"}
	agent := func(serial string) []string {
		return append(append([]string{}, nats...), "run_agent_task", `{"serial":"`+serial+`","goal":"think long"}`)
	}

	// Given up: --timeout passed.
	gaveUp := runCall(t.Context(), append([]string{"--timeout", "8s"}, agent(f.Devices()[0].Serial)...))
	require.Error(t, gaveUp)
	require.Contains(t, gaveUp.Error(), "gave up after --timeout 8s")

	// Interrupted: Ctrl-C once the task runs.
	ctx, interrupt := context.WithCancel(t.Context())
	ended := make(chan error, 1)
	go func() { ended <- runCall(ctx, agent(f.Devices()[1].Serial)) }()
	running := runningTaskOn(t, f, f.Devices()[1].Serial)
	interrupt()
	var interrupted error
	select {
	case interrupted = <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the interrupted call did not end")
	}
	require.Error(t, interrupted)
	require.Contains(t, interrupted.Error(), "the call was interrupted")

	for i, err := range []error{gaveUp, interrupted} {
		id := runningTaskOn(t, f, f.Devices()[i].Serial)
		if i == 1 {
			require.Equal(t, running, id)
		}
		want := "its record: corral call --nats-url " + f.URL + ` get_task_result '{"taskId":"` + id + `"}'`
		require.Contains(t, err.Error(), want)
		// The command line it names, as a shell splits it, reads the task's record.
		out := captureStdout(t, func() {
			require.NoError(t, runCall(t.Context(), []string{"--nats-url", f.URL, "--log-level", "error", "get_task_result", `{"taskId":"` + id + `"}`}))
		})
		assert.Contains(t, out, `"taskId":"`+id+`"`)
		assert.Contains(t, out, `"status":"running"`)
	}
	for _, d := range f.Devices() { // not to wait a minute for the model
		captureStdout(t, func() { _ = runCall(t.Context(), append(nats, "abort_task", `{"serial":"`+d.Serial+`"}`)) })
	}
}

// QA: `corral call run_agent_task … &` then `corral call abort_task '{}'`, both without
// --gateway, said "No task is currently running": the first call's task became the CLI
// holder's latest in NATS only when its command ended (docs/agent.md promises that a later
// call's abort_task {} stops it). It is kept there as the task starts, so the second call
// stops it while the first still waits; a caller of another name does not.
func TestCallAbortTaskStopsAnotherCallsWaitingAgentTask(t *testing.T) {
	f := hangingAgentFarm(t, 1, 1)
	serial := f.Devices()[0].Serial
	nats := []string{"--nats-url", f.URL, "--log-level", "error"}
	ended := make(chan error, 1)
	go func() {
		ended <- runCall(t.Context(), append(append([]string{}, nats...), "run_agent_task", `{"serial":"`+serial+`","goal":"think long"}`))
	}()
	id := runningTaskOn(t, f, serial)

	other := farmtest.Text(farmtest.MustCall(t, f.Client("someone-else"), "abort_task", nil))
	assert.Contains(t, other, "No task is currently running.", "another caller's abort_task {}")

	var out string
	farmtest.Eventually(t, 20*time.Second, func() bool {
		out = captureStdout(t, func() { require.NoError(t, runCall(t.Context(), append(nats, "abort_task", `{}`))) })
		return !strings.Contains(out, "No task is currently running")
	}, "a later corral call's abort_task {} finding the agent task")
	assert.Contains(t, out, "Task aborted: "+id+" (run_agent_task on device "+serial+")")
	select {
	case err := <-ended:
		require.Error(t, err)
		assert.Contains(t, err.Error(), "aborted by")
	case <-time.After(30 * time.Second):
		t.Fatal("the waiting call did not end with its aborted task")
	}
}
