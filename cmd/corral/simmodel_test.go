package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
)

var simModelBaseURL = regexp.MustCompile(`export OPENAI_BASE_URL=(\S+)`)

// startSimModel runs `corral sim model` with args in-process until the test ends, and returns
// the OPENAI_BASE_URL it prints.
func startSimModel(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- simModel(ctx, append([]string{"--listen", "127.0.0.1:0", "--log-level", "error"}, args...), &out)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("corral sim model: %v", err)
		}
	})
	farmtest.Eventually(t, time.Minute, func() bool { return strings.Contains(out.String(), "OPENAI_MODEL") }, "corral sim model's settings")
	return simModelBaseURL.FindStringSubmatch(out.String())[1]
}

// docs/agent.md's scripted model runs its agent task to the end on a farm's simulated phone,
// which shows Notes with hello; a task past the end of the script fails, saying the script has
// no turn left and what to do.
func TestSimModelRunsTheDocumentedAgentTask(t *testing.T) {
	script := docsScript(t)
	base := startSimModel(t, "--script", script)
	m, err := model.NewClient(model.Config{BaseURL: base, Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Model: m, Quiet: true})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")

	res := farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "open Notes and write hello"})
	var task struct {
		Status, Conclusion string
		StepsCompleted     int
	}
	farmtest.Structured(t, res, &task)
	require.Equal(t, "finished", task.Status, farmtest.Text(res))
	assert.Equal(t, 2, task.StepsCompleted)
	assert.Equal(t, "wrote hello in Notes", task.Conclusion)
	phone := f.Phone(serial)
	app, _ := phone.ForegroundApp(t.Context())
	assert.Equal(t, "com.corral.notes", app)
	assert.Contains(t, phone.Note(), "hello")

	res = farmtest.Call(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "open Notes and write hello"})
	require.True(t, res.IsError, farmtest.Text(res))
	text := farmtest.Text(res)
	assert.Contains(t, text, "corral sim model: the script has 5 turns, all answered; request 6 is past its end: "+
		"restart corral sim model to play the script again from its first turn, or add turns to "+script)
}

// A bad script stops `corral sim model` before it listens, naming the turn; --check-config
// says the same.
func TestSimModelRefusesABadScript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "turns.yaml")
	require.NoError(t, os.WriteFile(path, []byte("- tool_calls: [{name: plan, arguments: {steps: [{title: Look}]}}]\n- tool_calls: [{arguments: {x: 1}}]\n"), 0o600))
	for _, args := range [][]string{{"--script", path}, {"--script", path, "--check-config"}} {
		err := simModel(t.Context(), append([]string{"--listen", "127.0.0.1:0", "--log-level", "error"}, args...), &lockedBuffer{})
		require.Error(t, err, "%v", args)
		assert.Equal(t, "--script "+path+": turn 2 (line 2): tool call 1: it names no tool: give name: TOOL, e.g. name: tap", err.Error())
	}
	err := simModel(t.Context(), []string{"--listen", "127.0.0.1:0"}, &lockedBuffer{})
	assert.ErrorContains(t, err, "--script: give the file of turns the model answers")
}
