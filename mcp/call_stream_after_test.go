package mcp_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// A call's notifications go on its own POST's stream, until its answer, and nowhere else: not
// on the session's GET stream, not on another call's POST, not on a POST that takes JSON only.

// Concurrent short calls of one session, with and without progress tokens, while its GET
// stream is open: every POST's stream carries its own call's notifications only (its token,
// its sleep's length), its answer last, and the GET stream none of them.
func TestConcurrentCallsKeepTheirNotificationsToThemselves(t *testing.T) {
	const phones, rounds = 4, 6
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: phones, Quiet: true})
	g, url, _ := wireGateway(t, f)
	s := openWireSession(t, url)
	get := s.openGET(t)
	devs := f.Devices()
	id := 100
	for round := range rounds {
		var wg sync.WaitGroup
		for i := range phones {
			id++
			id := id
			seconds := 0.1 * float64(i+1) // its logging messages say "of 0.Ns": the call's tag
			token := ""
			if (round+i)%2 == 0 {
				token = fmt.Sprintf("r%d-c%d", round, i)
			}
			wg.Go(func() {
				a := s.post(t, acceptStream, sleepCall(id, devs[i].Serial, seconds, token))
				if !assert.NotEmpty(t, a.msgs, "round %d call %d: no answer", round, i) {
					return
				}
				assert.Equal(t, float64(id), a.msgs[len(a.msgs)-1]["id"], "round %d call %d: its answer is not its POST's last message: %v", round, i, a.msgs)
				for _, n := range a.notes() {
					p, _ := n["params"].(map[string]any)
					switch n["method"] {
					case "notifications/progress":
						assert.Equal(t, token, p["progressToken"], "round %d call %d: another call's progress on its POST: %v", round, i, n)
					case "notifications/message":
						assert.Empty(t, token, "round %d call %d: a logging message on a call with a progress token: %v", round, i, n)
						assert.Contains(t, fmt.Sprint(p["data"]), fmt.Sprintf("of %.1fs", seconds), "round %d call %d: another call's logging message on its POST", round, i)
					}
				}
			})
		}
		wg.Wait()
	}
	assert.Empty(t, get.after(t, g.MCPServer(), s.id, "marker-end"), "call notifications on the session's GET stream")
}

// A run_agent_task whose caller left runs on, and its later progress goes nowhere: the
// gateway sent it through the session's channel once the call's POST was answered, and the
// session's GET stream (or another call's POST) got it. With a progress token and without
// (logging messages).
func TestAnAgentTaskOutlivingItsCallerSendsItsProgressNowhere(t *testing.T) {
	var mu sync.Mutex
	releases := map[int]chan struct{}{0: make(chan struct{}), 1: make(chan struct{})}
	var once [2]sync.Once
	release := func(i int) { once[i].Do(func() { close(releases[i]) }) }
	held := func(i int) modelsim.Turn {
		return modelsim.Turn{Reply: func(modelsim.Request) modelsim.Turn {
			mu.Lock()
			ch := releases[i]
			mu.Unlock()
			<-ch
			return modelTurn("finished", `{"content":"looked"}`)
		}}
	}
	f, serial := agentFarm(t, modelTurn("plan", `{"steps":[{"title":"Look"}]}`), held(0),
		modelTurn("plan", `{"steps":[{"title":"Look"}]}`), held(1))
	t.Cleanup(func() { release(0); release(1) }) // before the model's server closes
	g, url, reg := wireGateway(t, f)
	gw := f.Gateway().Client

	for i, token := range []string{"", "agent"} {
		s := openWireSession(t, url)
		get := s.openGET(t)
		meta := ""
		if token != "" {
			meta = fmt.Sprintf(`,"_meta":{"progressToken":%q}`, token)
		}
		ctx, leave := context.WithCancel(t.Context())
		resp := s.send(t, ctx, acceptStream, fmt.Sprintf(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"run_agent_task","arguments":{"serial":%q,"goal":"look"}%s}}`, serial, meta))
		var taskID string
		farmtest.Eventually(t, 20*time.Second, func() bool {
			if d, ok := gw.Device(serial); ok && d.Task != nil && d.Task.Tool == "run_agent_task" {
				taskID = d.Task.ID
			}
			return taskID != ""
		}, "the agent task %d running", i)
		leave()
		resp.Body.Close()
		farmtest.Eventually(t, 20*time.Second, func() bool {
			return callCount(t, reg, "run_agent_task", broker.OutcomeAborted) == float64(i+1)
		}, "the call of agent task %d over, its caller gone", i)

		release(i) // the model answers: the task finishes, and says so
		farmtest.Eventually(t, 20*time.Second, func() bool {
			d, ok := gw.Device(serial)
			return ok && (d.Task == nil || d.Task.ID != taskID)
		}, "agent task %d ended", i)
		assert.Empty(t, get.after(t, g.MCPServer(), s.id, fmt.Sprintf("marker-%d", i)),
			"agent task %d (progress token %q): its progress after its caller left came on the session's GET stream", i, token)
	}
}

// A POST that takes JSON only is answered with JSON, always, and its call's notifications
// are dropped, never sent on the session's GET stream: mcp-go answered every POST of a session
// with a stream once the session had any notification, and the gateway sent the notifications
// of a call without a stream of its own through the session's channel. A batch's members are
// such calls.
func TestJSONOnlyPostsGetJSONAndNoNotifications(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	g, url, _ := wireGateway(t, f)
	serial := f.Devices()[0].Serial
	s := openWireSession(t, url)
	get := s.openGET(t)

	// A call on a stream: its notifications, then its answer framed as an event.
	a := s.post(t, acceptStream, sleepCall(10, serial, 0.3, "streamed"))
	require.True(t, a.stream(), "a call with progress on a POST that takes a stream: %s %v", a.contentType, a.msgs)
	require.NotEmpty(t, a.notes(), "no notification on its stream")
	assert.Equal(t, 10.0, a.msgs[len(a.msgs)-1]["id"], "its answer is not the last event: %v", a.msgs)

	jsonOnly := func(what string, id int, body string) {
		t.Helper()
		a := s.post(t, acceptJSON, body)
		assert.True(t, strings.HasPrefix(a.contentType, "application/json"), "%s: a JSON-only POST answered %s: %v", what, a.contentType, a.msgs)
		require.Len(t, a.msgs, 1, "%s: %v", what, a.msgs)
		assert.Equal(t, float64(id), a.msgs[0]["id"], "%s: %v", what, a.msgs)
		assert.Contains(t, a.msgs[0], "result", "%s: %v", what, a.msgs)
	}
	jsonOnly("sleep with a progress token", 11, sleepCall(11, serial, 0.3, "json"))
	jsonOnly("sleep without one", 12, sleepCall(12, serial, 0.3, ""))
	b := s.post(t, acceptStream, "["+sleepCall(13, serial, 0.3, "batched")+","+sleepCall(14, serial, 0.3, "")+"]")
	assert.True(t, strings.HasPrefix(b.contentType, "application/json"), "a batch answered %s", b.contentType)
	require.Len(t, b.msgs, 2, "a batch's answers: %v", b.msgs)
	assert.Empty(t, b.notes(), "notifications in a batch's answer")
	assert.Empty(t, get.after(t, g.MCPServer(), s.id, "marker-1"), "notifications of JSON-only calls on the GET stream")

	// mcp-go's own session-wide switch to streams (the marker just set it) does not reach a
	// POST that takes JSON only either; one that takes a stream and gets no notification is
	// answered with JSON too.
	jsonOnly("tools/list after a session notification", 15, `{"jsonrpc":"2.0","id":15,"method":"tools/list"}`)
	jsonOnly("sleep after a session notification", 16, sleepCall(16, serial, 0.3, "json-2"))
	assert.Empty(t, get.after(t, g.MCPServer(), s.id, "marker-2"), "notifications of JSON-only calls on the GET stream")
}

// In process (corral call) a call's progress still reaches its caller: its session is the
// caller's own, with no POST to carry it.
func TestInProcessCallsStillGetTheirProgress(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	cli, _ := inProcessCLI(t, f.Gateway().Client)
	var mu sync.Mutex
	var got []mcpgo.JSONRPCNotification
	cli.OnNotification(func(n mcpgo.JSONRPCNotification) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, n)
	})
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "sleep", map[string]any{"serial": f.Devices()[0].Serial, "seconds": 0.3}
	req.Params.Meta = &mcpgo.Meta{ProgressToken: "corral-cli"}
	res, err := cli.CallTool(t.Context(), req)
	require.NoError(t, err)
	require.False(t, res.IsError, farmtest.Text(res))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) > 0 && got[0].Method == "notifications/progress"
	}, "progress of an in-process call")
}
