package test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// tapLabel is a scripted model's turn that taps the element labelled label in the listing the
// agent sent, as a model that reads the listing does.
func tapLabel(t *testing.T, label string) modelsim.Turn {
	return modelsim.Turn{Reply: func(req modelsim.Request) modelsim.Turn {
		bbox, ok := req.BBox(label)
		if !ok {
			t.Errorf("the agent's request lists no element %q", label)
			return modelsim.Say("I cannot see " + label)
		}
		b, _ := json.Marshal(map[string]any{"bbox": bbox})
		return modelsim.Call(modelsim.ToolCall{Name: "tap", Arguments: string(b)})
	}}
}

func call(name, args string) modelsim.Turn {
	return modelsim.Call(modelsim.ToolCall{Name: name, Arguments: args})
}

// agentFarm is a farm of one simulated phone whose node's model is a scripted one.
func agentFarm(t *testing.T, turns ...modelsim.Turn) (*farmtest.Farm, *modelsim.Server, string) {
	t.Helper()
	return agentFarmWith(t, farmtest.Options{}, turns...)
}

// agentFarmWith is agentFarm with more options.
func agentFarmWith(t *testing.T, o farmtest.Options, turns ...modelsim.Turn) (*farmtest.Farm, *modelsim.Server, string) {
	t.Helper()
	srv := modelsim.New(turns...)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	o.PhonesPerNode, o.Model = 1, m
	f := farmtest.Start(t, o)
	return f, srv, f.Devices()[0].Serial
}

// run_agent_task through the front door: the agent on the node plans, opens Notes by tapping
// the icon the listing shows, types, and finishes; the phone shows the text; progress arrives
// as the seed reports it; the Markdown report and the structured result agree; the task's
// record keeps its steps.
func TestRunAgentTaskThroughTheFrontDoor(t *testing.T) {
	f, srv, serial := agentFarm(t,
		call("plan", `{"steps":[{"title":"Open Notes","description":"tap the Notes icon"},{"title":"Write hello","description":"type it"}]}`),
		tapLabel(t, "Notes"),
		call("step_done", `{"status":"success","summary":"Notes is open"}`),
		call("input", `{"text":"hello"}`),
		call("finished", `{"content":"wrote hello in Notes"}`),
	)
	c := f.Client("agent")
	var mu sync.Mutex
	var messages []string
	c.OnNotification(func(n mcpgo.JSONRPCNotification) {
		if n.Method == string(mcpgo.MethodNotificationProgress) {
			mu.Lock()
			defer mu.Unlock()
			if m, ok := n.Params.AdditionalFields["message"].(string); ok {
				messages = append(messages, m)
			}
		}
	})
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "run_agent_task"
	req.Params.Arguments = args("serial", serial, "goal", "write hello in Notes")
	req.Params.Meta = &mcpgo.Meta{ProgressToken: "agent-1"}
	res, err := c.CallTool(t.Context(), req)
	require.NoError(t, err)
	require.False(t, res.IsError, farmtest.Text(res))
	var out struct {
		TaskID, Status, Conclusion string
		StepsCompleted, TotalSteps int
		Steps                      []struct{ Title, Status string }
	}
	farmtest.Structured(t, res, &out)
	assert.Equal(t, "finished", out.Status)
	assert.Equal(t, "wrote hello in Notes", out.Conclusion)
	assert.Equal(t, 2, out.StepsCompleted)
	contains(t, farmtest.Text(res), "Agent task", "wrote hello in Notes", "Open Notes")

	phone := f.Phone(serial)
	app, _ := phone.ForegroundApp(t.Context())
	assert.Equal(t, "com.corral.notes", app, "the agent's tap opened Notes")
	assert.Contains(t, strings.Join(phone.InputLog(), "\n"), "hello", "the agent typed hello on the phone")

	mu.Lock()
	got := strings.Join(messages, "\n")
	mu.Unlock()
	for _, want := range []string{"Open Notes", "tap(", "input(", "Step 2"} {
		assert.Contains(t, got, want, "progress says %q", want)
	}
	reqs := srv.Requests()
	require.NotEmpty(t, reqs)
	assert.NotEmpty(t, reqs[0].Messages[len(reqs[0].Messages)-1].Images, "the model sees the screenshot")

	rec := farmtest.MustCall(t, c, "get_task_result", args("taskId", out.TaskID))
	contains(t, farmtest.Text(rec), "run_agent_task", "Write hello", "wrote hello in Notes")
	rec = farmtest.MustCall(t, c, "get_task_result", args("taskId", out.TaskID, "includeSteps", false))
	assert.NotContains(t, farmtest.Text(rec), "Write hello")
	latest := farmtest.MustCall(t, c, "get_latest_task", args())
	contains(t, farmtest.Text(latest), out.TaskID)
}

// Issue 14: the screens each step of an agent task began and ended on are kept in the farm's
// object store, saved by the node and read by the gateway with their own NATS users; the
// task's record names them and get_task_result shows them; /metrics counts them. An
// operator's NATS user may not read them (screens show people's data).
func TestAgentTaskScreenshotsKept(t *testing.T) {
	f, srv, serial := agentFarmWith(t, farmtest.Options{Auth: true},
		call("plan", `{"steps":[{"title":"Open Notes"}]}`),
		tapLabel(t, "Notes"),
		call("finished", `{"content":"Notes is open"}`),
	)
	c := f.Client("agent")
	res := farmtest.MustCall(t, c, "run_agent_task", args("serial", serial, "goal", "open Notes"))
	var out struct {
		TaskID string
		Steps  []struct{ BeforeScreenshot, AfterScreenshot string }
	}
	farmtest.Structured(t, res, &out)
	require.Len(t, out.Steps, 1)
	step := out.Steps[0]
	require.NotEmpty(t, step.BeforeScreenshot, "the step names the screen it began on")
	require.NotEqual(t, step.BeforeScreenshot, step.AfterScreenshot, "the tap changed the screen")

	rec := farmtest.MustCall(t, c, "get_task_result", args("taskId", out.TaskID, "screenshotsOfStep", 1))
	var shots []string
	for _, content := range rec.Content {
		if ic, ok := content.(mcpgo.ImageContent); ok {
			assert.Equal(t, "image/jpeg", ic.MIMEType)
			shots = append(shots, ic.Data)
		}
	}
	require.Len(t, shots, 2, farmtest.Text(rec))
	for _, b64 := range shots {
		b, err := base64.StdEncoding.DecodeString(b64)
		require.NoError(t, err)
		_, err = jpeg.Decode(bytes.NewReader(b))
		require.NoError(t, err, "a kept screenshot is a JPEG")
	}
	// They are the screens the model was shown: the step's first, and the one after the tap.
	shown := map[string]bool{}
	for _, r := range srv.Requests() {
		for _, m := range r.Messages {
			for _, img := range m.Images {
				shown[strings.TrimPrefix(img, "data:image/jpeg;base64,")] = true
			}
		}
	}
	assert.True(t, shown[shots[0]], "the step's first screenshot is not one the model saw")
	assert.True(t, shown[shots[1]], "the step's last screenshot is not one the model saw")

	bad, err := farmtest.TryCall(t, c, "get_task_result", args("taskId", out.TaskID, "screenshotsOfStep", 2))
	require.NoError(t, err)
	require.True(t, bad.IsError)
	contains(t, farmtest.Text(bad), "has 1 step")
	if strings.Contains(farmtest.Text(bad), "1 steps") {
		t.Errorf("one step counted as many: %s", farmtest.Text(bad))
	}
	farmtest.MustCall(t, c, "tap_xy", args("serial", serial, "x", 0.5, "y", 0.5))
	var tap struct{ TaskID string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true)), &tap)
	bad, err = farmtest.TryCall(t, c, "get_task_result", args("taskId", tap.TaskID, "screenshotsOfStep", 1))
	require.NoError(t, err)
	require.True(t, bad.IsError)
	contains(t, farmtest.Text(bad), "only run_agent_task keeps them")

	assert.Equal(t, 2.0, metric(t, f, `corral_screenshots_total{node="n1",outcome="saved"}`))
	assert.Zero(t, metric(t, f, `corral_screenshots_total{node="n1",outcome="failed"}`))
	outText, _ := natsAs(t, f, broker.UserName(broker.RoleOperator, ""), "object", "get", broker.ScreenshotBucket, step.BeforeScreenshot, "--output", t.TempDir()+"/shot.jpg")
	assert.True(t, refused(outText), "an operator read a screenshot:\n%s", outText)
}

// An agent task started with wait:false answers at once; a second one on the device is told the
// agent is already running; get_task_result says running, then abort_task stops it within
// moments, and its record says aborted.
func TestAgentTaskAsyncAlreadyRunningAndAbort(t *testing.T) {
	f, _, serial := agentFarm(t,
		call("plan", `{"steps":[{"title":"Wait for the model"}]}`),
		modelsim.Turn{Delay: time.Minute, Text: "too late"},
	)
	c := f.Client("agent")
	res := farmtest.MustCall(t, c, "run_agent_task", args("serial", serial, "goal", "think long", "wait", false))
	var started struct{ TaskID, Status string }
	farmtest.Structured(t, res, &started)
	require.Equal(t, "running", started.Status)
	require.NotEmpty(t, started.TaskID)
	farmtest.Eventually(t, 10*time.Second, func() bool {
		r, err := farmtest.TryCall(t, c, "get_task_result", args("taskId", started.TaskID))
		return err == nil && !r.IsError && strings.Contains(farmtest.Text(r), `"status":"running"`)
	}, "get_task_result says the task runs")
	second, err := farmtest.TryCall(t, c, "run_agent_task", args("serial", serial, "goal", "another"))
	require.NoError(t, err)
	require.True(t, second.IsError)
	contains(t, farmtest.Text(second), "Agent is already running")

	start := time.Now()
	farmtest.MustCall(t, c, "abort_task", args("serial", serial))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		r, err := farmtest.TryCall(t, c, "get_task_result", args("taskId", started.TaskID))
		return err == nil && !r.IsError && strings.Contains(farmtest.Text(r), `"status":"aborted"`)
	}, "the aborted task's record")
	t.Logf("abort_task to the aborted record: %s", time.Since(start).Round(time.Millisecond))
}

// Without a model the AI tools say how to configure one, and the rest of the farm works.
func TestAgentToolsWithoutModel(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	for _, tool := range []string{"run_agent_task", "ai_action", "ai_query"} {
		a := args("serial", serial, "goal", "x")
		if tool != "run_agent_task" {
			a = args("serial", serial, "prompt", "x")
		}
		res, err := farmtest.TryCall(t, c, tool, a)
		require.NoError(t, err)
		require.True(t, res.IsError, tool)
		contains(t, farmtest.Text(res), "OPENAI_BASE_URL", "OPENAI_MODEL")
	}
	farmtest.MustCall(t, c, "tap_xy", args("serial", serial, "x", 0.5, "y", 0.5))
}

// ai_query answers from the screen without touching it; ai_action acts once.
func TestAIQueryAndAction(t *testing.T) {
	f, srv, serial := agentFarm(t,
		modelsim.Turn{Reply: func(req modelsim.Request) modelsim.Turn {
			if _, ok := req.BBox("Settings"); !ok {
				return modelsim.Say("no listing")
			}
			return modelsim.Say("The home screen, with Settings.")
		}},
		call("plan", `{"steps":[{"title":"Open Settings"}]}`),
		tapLabel(t, "Settings"),
		call("finished", `{"content":"Settings is open"}`),
	)
	c := f.Client("agent")
	phone := f.Phone(serial)
	before := len(phone.InputLog())
	res := farmtest.MustCall(t, c, "ai_query", args("serial", serial, "prompt", "what is on the screen?"))
	contains(t, farmtest.Text(res), "The home screen, with Settings.")
	assert.Len(t, phone.InputLog(), before, "ai_query touched the phone")
	res = farmtest.MustCall(t, c, "ai_action", args("serial", serial, "prompt", "open Settings"))
	var done struct {
		Prompt, ActionTaken string
		Actions             []struct{ Tool string }
	}
	farmtest.Structured(t, res, &done)
	assert.Equal(t, "open Settings", done.Prompt)
	assert.Contains(t, done.ActionTaken, "tap {", "actionTaken says the calls in words (seed: a string)")
	if assert.NotEmpty(t, done.Actions) {
		assert.Equal(t, "tap", done.Actions[0].Tool)
	}
	var fin struct {
		Content       string
		TaskCompleted bool
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "finished", args("serial", serial, "content", "Settings is open")), &fin)
	assert.Equal(t, "Settings is open", fin.Content, "finished answers its content (seed)")
	assert.True(t, fin.TaskCompleted, "finished answers taskCompleted (seed)")
	app, _ := phone.ForegroundApp(t.Context())
	assert.Equal(t, "com.corral.settings", app)
	assert.Equal(t, 0, srv.Left(), fmt.Sprintf("unused turns: %d", srv.Left()))
}

// A caller that gives up on its run_agent_task (cancels, or its connection drops) leaves the task
// running on the node to its end; its record has the agent's conclusion.
func TestAgentTaskOutlivesItsCaller(t *testing.T) {
	// The model answers only once the caller has gone, whatever the machine's speed.
	gone := make(chan struct{})
	f, _, serial := agentFarm(t,
		call("plan", `{"steps":[{"title":"Look"}]}`),
		modelsim.Turn{Reply: func(modelsim.Request) modelsim.Turn {
			select {
			case <-gone:
			case <-time.After(time.Minute):
			}
			return call("finished", `{"content":"looked"}`)
		}},
	)
	c := f.Client("agent")
	ctx, cancel := context.WithCancel(t.Context())
	answered := make(chan error, 1)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "run_agent_task", args("serial", serial, "goal", "look")
		_, err := c.CallTool(ctx, req)
		answered <- err
	}()
	var id string
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		if ok && d.Task != nil && d.Task.Tool == "run_agent_task" {
			id = d.Task.ID
		}
		return id != ""
	}, "the agent task running")
	cancel()
	<-answered
	close(gone)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		r, err := farmtest.TryCall(t, c, "get_task_result", args("taskId", id))
		return err == nil && !r.IsError && strings.Contains(farmtest.Text(r), `"conclusion":"looked"`)
	}, "the task ran to its end after its caller left")
}

// The phone-agent seed's take_screenshot and get_device_status take no arguments, and its
// run_agent_task only a goal: with one device in the farm they need no serial; with several
// they ask for one.
func TestPhoneAgentToolsWithoutArguments(t *testing.T) {
	f, _, _ := agentFarm(t, call("finished", `{"content":"the screen is on"}`))
	c := f.Client("agent")
	res := farmtest.MustCall(t, c, "get_device_status", args())
	contains(t, farmtest.Text(res), f.Devices()[0].Serial, `"connected":true`)
	res = farmtest.MustCall(t, c, "run_agent_task", args("goal", "is the screen on?"))
	contains(t, farmtest.Text(res), "the screen is on")
	res = farmtest.MustCall(t, c, "take_screenshot", args("format", "jpeg"))
	_, mime := farmtest.Image(res)
	assert.Equal(t, "image/jpeg", mime)
	res = farmtest.MustCall(t, c, "take_screenshot", args()) // the seed's: "返回 PNG 图片", image/png
	data, mime := farmtest.Image(res)
	assert.Equal(t, "image/png", mime)
	raw, err := base64.StdEncoding.DecodeString(data)
	require.NoError(t, err)
	_, err = png.DecodeConfig(bytes.NewReader(raw))
	require.NoError(t, err, "take_screenshot {} is a PNG")
	assert.LessOrEqual(t, len(raw), 300_000)
	f.StartNode("n2", 1)
	f.WaitDevices(2, "online")
	for _, tool := range []string{"take_screenshot", "run_agent_task"} {
		res, err = farmtest.TryCall(t, c, tool, args("goal", "anything"))
		if tool == "take_screenshot" {
			res, err = farmtest.TryCall(t, c, tool, args())
		}
		require.NoError(t, err)
		require.True(t, res.IsError, tool)
		contains(t, farmtest.Text(res), "serial is required")
	}
}
