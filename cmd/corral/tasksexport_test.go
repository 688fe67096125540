package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp/steps"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// tapListed is a scripted model's turn that taps the element labelled label in the latest
// listing the agent sent, as a model that reads the listing does.
func tapListed(t *testing.T, label string) modelsim.Turn {
	re := regexp.MustCompile(`e\d+ \[\w+\] "` + regexp.QuoteMeta(label) + `" (\[[0-9.,]+\])`)
	return modelsim.Turn{Reply: func(req modelsim.Request) modelsim.Turn {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if m := re.FindStringSubmatch(req.Messages[i].Text); m != nil {
				return modelsim.Call(modelsim.ToolCall{Name: "tap", Arguments: `{"bbox":` + m[1] + `}`})
			}
		}
		t.Errorf("the agent's request lists no element %q", label)
		return modelsim.Say("I cannot see " + label)
	}}
}

func modelCall(name, args string) modelsim.Turn {
	return modelsim.Call(modelsim.ToolCall{Name: name, Arguments: args})
}

// An agent task, exported through the gateway and through NATS, replays with `corral run`
// against the same farm without a model, and leaves the phone as the agent did; what is not an
// agent task's record refuses to export.
func TestTasksExportReplays(t *testing.T) {
	srv := modelsim.New(
		modelCall("plan", `{"steps":[{"title":"Open Notes"},{"title":"Write hello"}]}`),
		tapListed(t, "Notes"),
		modelCall("step_done", `{"status":"success","summary":"Notes is open"}`),
		modelCall("input", `{"text":"hello"}`),
		modelCall("finished", `{"content":"wrote hello in Notes"}`),
	)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Model: m, Quiet: true})
	serial := f.Devices()[0].Serial
	phone := f.Phone(serial)
	c := f.Client("agent")
	ctx := t.Context()

	res := farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": serial, "goal": "write hello in Notes"})
	var task struct{ TaskID, Status string }
	farmtest.Structured(t, res, &task)
	require.Equal(t, "finished", task.Status, farmtest.Text(res))
	agentApp, _ := phone.ForegroundApp(ctx)
	agentNote := phone.Note()
	require.Equal(t, "com.corral.notes", agentApp)
	require.Contains(t, agentNote, "hello")

	dir := t.TempDir()
	viaGateway, viaNATS := filepath.Join(dir, "gateway.yaml"), filepath.Join(dir, "nats.yaml")
	require.NoError(t, runTasksExport(ctx, []string{task.TaskID, "--gateway", f.Gateway().MCPURL, "--out", viaGateway}))
	require.NoError(t, runTasksExport(ctx, []string{"--nats-url", f.URL, task.TaskID, "--out", viaNATS}))
	a, err := os.ReadFile(viaGateway)
	require.NoError(t, err)
	b, err := os.ReadFile(viaNATS)
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b), "the gateway and NATS read the same record")
	t.Logf("%s:\n%s", viaGateway, a)

	doc, err := steps.Load(viaGateway)
	require.NoError(t, err)
	assert.Equal(t, "agent-"+task.TaskID, doc.Name)
	assert.Equal(t, serial, doc.Serial)
	var tools, names []string
	for _, s := range doc.Steps {
		if s.Tool != "sleep_ms" {
			tools, names = append(tools, s.Tool), append(names, s.Name)
		}
	}
	assert.Equal(t, []string{"tap", "input"}, tools)
	assert.Equal(t, []string{"step 1: Open Notes", "step 2: Write hello"}, names)
	assert.NotEmpty(t, doc.Steps[0].Expect, "the tap that opened Notes expects what the agent saw appear")

	// docs/agent.md's commands as written, after its run_agent_task (done above): export, put
	// the phone back where the agent began, replay with no model (the model has no turn left).
	// Without the reset the replay failed (QA Q14): Notes kept the agent's "hello".
	flow := docExportFlow(t)
	require.Equal(t, []string{"call", "run_agent_task"}, flow[0][:2], "the doc's flow begins with the agent's task")
	docDir := t.TempDir()
	for _, args := range flow[1:] {
		require.NoError(t, runDocCommand(ctx, t, docFarm{serial: serial, gateway: f.Gateway().MCPURL, taskID: task.TaskID, dir: docDir}, args))
	}
	junit, err := os.ReadFile(filepath.Join(docDir, "notes-hello.xml"))
	require.NoError(t, err, "the doc's corral run writes its JUnit report")
	assert.Contains(t, string(junit), `failures="0"`)
	app, _ := phone.ForegroundApp(ctx)
	assert.Equal(t, agentApp, app, "the replay leaves the app the agent left")
	assert.Equal(t, agentNote, phone.Note(), "the replay leaves the note the agent wrote")
	assert.Zero(t, srv.Left())

	// Another tool's task, and a task that never was, refuse.
	farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": serial, "x": 0.5, "y": 0.5})
	var latest struct{ TaskID string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", map[string]any{"anyTool": true}), &latest)
	require.NotEmpty(t, latest.TaskID)
	err = runTasksExport(ctx, []string{latest.TaskID, "--gateway", f.Gateway().MCPURL})
	require.Error(t, err)
	assert.Equal(t, "task "+latest.TaskID+" ran tap_xy, not run_agent_task: only agent tasks export", err.Error())
	err = runTasksExport(ctx, []string{"t_nosuchtask", "--gateway", f.Gateway().MCPURL, "--timeout", "20s"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no record of task t_nosuchtask")
	assert.Contains(t, err.Error(), "`corral tasks --tool run_agent_task` lists")
}
