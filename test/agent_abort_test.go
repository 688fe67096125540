package test

import (
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// abortAnswer is abort_task's structured result.
type abortAnswer struct {
	Message string
	Aborted []string
}

func abortWith(t *testing.T, c *client.Client, a map[string]any) abortAnswer {
	t.Helper()
	var out abortAnswer
	farmtest.Structured(t, farmtest.MustCall(t, c, "abort_task", a), &out)
	return out
}

// QA: abort_task without arguments (the phone-agent seed's takes none) answered "say which:
// serial, task_id or lease" while the caller's agent task ran. It aborts the caller's running
// agent task: a session's, and without a session (the newest protocol revision) the holder's;
// another caller's it leaves alone. With none running it says so, in the seed's words.
func TestAbortTaskWithoutArgumentsAbortsTheCallersAgentTask(t *testing.T) {
	slow := []modelsim.Turn{call("plan", `{"steps":[{"title":"Wait for the model"}]}`), {Delay: time.Minute, Text: "too late"}}
	for _, tc := range []struct {
		name  string
		start func(f *farmtest.Farm, name string) *client.Client
	}{
		{"stateless", func(f *farmtest.Farm, name string) *client.Client { return f.Client(name) }},
		{"session", func(f *farmtest.Farm, name string) *client.Client {
			return f.ClientWithProtocol(name, mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _, serial := agentFarm(t, append(slow, slow...)...)
			c, other := tc.start(f, "agent"), tc.start(f, "someone-else")
			assert.Equal(t, "No task is currently running.", abortWith(t, c, args()).Message)

			// A caller waiting for its task, and one that did not wait.
			for _, wait := range []bool{true, false} {
				var answer <-chan farmtest.Answer
				var id string
				if wait {
					answer = farmtest.Go(t, c, "run_agent_task", args("serial", serial, "goal", "think long"))
					farmtest.Eventually(t, 10*time.Second, func() bool {
						d, ok := f.Gateway().Client.Device(serial)
						if ok && d.Task != nil {
							id = d.Task.ID
						}
						return id != ""
					}, "the agent task running")
				} else {
					var started struct{ TaskID string }
					farmtest.Structured(t, farmtest.MustCall(t, c, "run_agent_task", args("serial", serial, "goal", "think long", "wait", false)), &started)
					id = started.TaskID
				}
				assert.Equal(t, "No task is currently running.", abortWith(t, other, args()).Message, "another caller's abort_task")
				got := abortWith(t, c, args())
				if !assert.Equal(t, []string{id}, got.Aborted, got.Message) {
					farmtest.MustCall(t, c, "abort_task", args("serial", serial)) // not to wait a minute for the model
				}
				assert.Equal(t, "Task aborted: "+id+" (run_agent_task on device "+serial+").", got.Message)
				if wait {
					res := (<-answer).Get(t)
					require.True(t, res.IsError)
					contains(t, farmtest.Text(res), "aborted by")
				}
				farmtest.Eventually(t, 10*time.Second, func() bool {
					r, err := farmtest.TryCall(t, c, "get_task_result", args("taskId", id))
					return err == nil && !r.IsError && strings.Contains(farmtest.Text(r), `"outcome":"aborted"`)
				}, "the aborted task's record")
				assert.Equal(t, "No task is currently running.", abortWith(t, c, args()).Message)
			}
		})
	}
}

// Without a session, abort_task without arguments also finds the holder's agent task that
// another gateway sent, in the registry.
func TestAbortTaskWithoutArgumentsFindsTheHoldersTaskInTheRegistry(t *testing.T) {
	f, _, serial := agentFarm(t, call("plan", `{"steps":[{"title":"Wait for the model"}]}`), modelsim.Turn{Delay: time.Minute, Text: "too late"},
		call("plan", `{"steps":[{"title":"Wait for the model"}]}`), modelsim.Turn{Delay: time.Minute, Text: "too late"})
	c := f.Client("agent")
	// The holder the gateway names this client by, from a task of its own.
	var started struct{ TaskID string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "run_agent_task", args("serial", serial, "goal", "think long", "wait", false)), &started)
	var holder broker.Holder
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		if ok && d.Task != nil && d.Task.ID == started.TaskID && d.Task.Holder != nil {
			holder = *d.Task.Holder
			return true
		}
		return false
	}, "the registry shows the task")
	require.Equal(t, []string{started.TaskID}, abortWith(t, c, args()).Aborted)

	id := broker.NewTaskID()
	other := make(chan broker.TaskResult, 1)
	go func() { // as another gateway would send it for this holder
		res, _ := f.Gateway().Client.Run(t.Context(), broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: "run_agent_task",
			Args: []byte(`{"goal":"think long"}`), Holder: holder, WaitMS: 10_000}, nil)
		other <- res
	}()
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil && d.Task.ID == id
	}, "the other gateway's agent task running")
	got := abortWith(t, c, args())
	assert.Equal(t, []string{id}, got.Aborted, got.Message)
	assert.Equal(t, broker.OutcomeAborted, (<-other).Outcome)
}

// QA: abort_task {"taskId": "t_bogus"} said no task was running "on task t_bogus". An id no
// task has is bad input, and says where ids come from; a task that already ended says so, with
// how it ended.
func TestAbortTaskOfATaskThatIsNotRunning(t *testing.T) {
	f, _, serial := agentFarm(t, call("plan", `{"steps":[{"title":"Look"}]}`), call("finished", `{"content":"looked"}`))
	c := f.Client("agent")
	res, err := farmtest.TryCall(t, c, "abort_task", args("taskId", "t_bogus"))
	require.NoError(t, err)
	require.True(t, res.IsError, farmtest.Text(res))
	contains(t, farmtest.Text(res), "no task has the id t_bogus", "run_agent_task", "get_latest_task")

	var done struct{ TaskID string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "run_agent_task", args("serial", serial, "goal", "look")), &done)
	got := abortWith(t, c, args("taskId", done.TaskID))
	assert.Empty(t, got.Aborted)
	contains(t, got.Message, "Task "+done.TaskID+" already ended: it succeeded at", "nothing to abort", "get_task_result")
}
