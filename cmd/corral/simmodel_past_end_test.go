package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
)

// QA: a task past the end of the script failed naming "request 3" of a script of 1 turn, as
// the sim answered 500 and the model client retries a 500 once; its hint said "retrying may
// help". Out of turns is not a server fault: the first request past the end fails the task at
// once, naming it request N+1 of a script of N turns, and says how to play the script again,
// streamed or not, with no hint about tools, images or streaming.
func TestSimModelPastTheScriptFailsAtOnce(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "stream"}[stream], func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "turns.yaml")
			require.NoError(t, os.WriteFile(script, []byte("- tool_calls: [{name: finished, arguments: {content: already there}}]\n"), 0o600))
			base := startSimModel(t, "--script", script)
			m, err := model.NewClient(model.Config{BaseURL: base, Model: "scripted", Stream: stream}, nil)
			require.NoError(t, err)
			f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Model: m, Quiet: true})
			c := f.Client("agent")
			goal := map[string]any{"serial": f.Devices()[0].Serial, "goal": "open the home screen"}

			res := farmtest.MustCall(t, c, "run_agent_task", goal)
			require.Contains(t, farmtest.Text(res), "already there")

			res = farmtest.Call(t, c, "run_agent_task", goal)
			require.True(t, res.IsError, farmtest.Text(res))
			text := farmtest.Text(res)
			assert.Contains(t, text, `answered 410 for model "scripted": corral sim model: the script has 1 turn, all answered; `+
				"request 2 is past its end: restart corral sim model to play the script again from its first turn, or add turns to "+script)
			assert.Contains(t, text, `"modelCalls":1,`, "the client retried the request past the end")
			for _, wrong := range []string{"request 3", "retrying may help", "takes tools and images", "streaming off"} {
				assert.NotContains(t, text, wrong)
			}
		})
	}
}
