package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// An agent task whose model wrote an enum value as the tool takes it but the schema does not
// list it (press_button "home", swipe_direction "UP") exports with the listed spelling and
// replays with `corral run`; a steps file written with the model's spelling, or with spaces,
// replays too (QA: `nothing ran; fix these steps: step 1 (line 8, press_button): button must be
// one of HOME, BACK, …; got "home"`).
func TestTasksExportReplaysEnumSpellings(t *testing.T) {
	srv := modelsim.New(
		modelCall("plan", `{"steps":[{"title":"Go home and swipe up"}]}`),
		modelCall("press_button", `{"button":"home"}`),
		modelCall("swipe_direction", `{"direction":"UP"}`),
		modelCall("step_done", `{"status":"success","summary":"done"}`),
		modelCall("finished", `{"content":"home, swiped up"}`),
	)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Model: m, Quiet: true})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	gateway := f.Gateway().MCPURL

	res := farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "go home and swipe up"})
	var task struct{ TaskID, Status string }
	farmtest.Structured(t, res, &task)
	require.Equal(t, "finished", task.Status, farmtest.Text(res))

	dir := t.TempDir()
	exported := filepath.Join(dir, "exp.yaml")
	code, out, errOut := corralMain(t, "tasks", "export", task.TaskID, "--gateway", gateway, "--out", exported)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	b, err := os.ReadFile(exported)
	require.NoError(t, err)
	assert.Contains(t, string(b), "arguments: {button: HOME}", "the export writes the spelling the schema lists:\n%s", b)
	assert.Contains(t, string(b), "arguments: {direction: up}", "the export writes the spelling the schema lists:\n%s", b)

	asWritten := filepath.Join(dir, "as-written.yaml")
	require.NoError(t, os.WriteFile(asWritten, []byte(`steps:
  - tool: press_button
    arguments: {button: home}
  - tool: swipe_direction
    arguments: {direction: UP}
  - tool: press_button
    arguments: {button: " back "}
`), 0o600))
	for _, file := range []string{exported, asWritten} {
		farmtest.MustCall(t, c, "home", map[string]any{"serial": serial})
		code, out, errOut := corralMain(t, "run", file, "--gateway", gateway, "--serial", serial)
		assert.Equal(t, 0, code, "corral run %s:\n%s\n%s", filepath.Base(file), out, errOut)
	}
	assert.Zero(t, srv.Left())
}
