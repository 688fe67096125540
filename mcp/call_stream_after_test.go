package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// A call's notifications go on its own POST's stream, until its answer, and nowhere else: not
// on the session's GET stream, not on another call's POST, not on a POST that takes JSON only.

// Accept headers of a client that takes a stream, and of one that takes JSON only.
const (
	acceptStream = "application/json, text/event-stream"
	acceptJSON   = "application/json"
)

// wireSession is one MCP session spoken in raw HTTP.
type wireSession struct {
	url, id string
}

// openWireSession initializes a session that wants info-level logging messages.
func openWireSession(t *testing.T, url string) *wireSession {
	t.Helper()
	s := &wireSession{url: url}
	s.post(t, acceptStream, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	require.NotEmpty(t, s.id)
	s.post(t, acceptStream, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.post(t, acceptStream, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)
	return s
}

// wireAnswer is what a POST got: its Content-Type and its messages in order (a stream's events,
// or the one JSON body: an object or a batch's array).
type wireAnswer struct {
	contentType string
	msgs        []map[string]any
}

func (a wireAnswer) stream() bool { return strings.HasPrefix(a.contentType, "text/event-stream") }

// notes are the notifications among the answer's messages.
func (a wireAnswer) notes() []map[string]any {
	var out []map[string]any
	for _, m := range a.msgs {
		if m["method"] != nil {
			out = append(out, m)
		}
	}
	return out
}

// post sends body with accept, and reads the whole answer.
func (s *wireSession) post(t *testing.T, accept, body string) wireAnswer {
	t.Helper()
	resp := s.send(t, t.Context(), accept, body)
	defer resp.Body.Close()
	a := wireAnswer{contentType: resp.Header.Get("Content-Type")}
	if a.stream() {
		require.NoError(t, readEvents(resp.Body, func(m map[string]any) { a.msgs = append(a.msgs, m) }))
		return a
	}
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	switch b := strings.TrimSpace(string(b)); {
	case b == "":
	case strings.HasPrefix(b, "["):
		require.NoError(t, json.Unmarshal([]byte(b), &a.msgs), b)
	default:
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(b), &m), b)
		a.msgs = []map[string]any{m}
	}
	return a
}

func (s *wireSession) send(t *testing.T, ctx context.Context, accept, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	if s.id == "" {
		s.id = resp.Header.Get("Mcp-Session-Id")
	}
	return resp
}

// readEvents calls each with the message of every SSE event read from r, until r ends; data
// that is not JSON (an answer written raw on a stream) is an error.
func readEvents(r io.Reader, each func(map[string]any)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "event: ") || strings.HasPrefix(line, "id: ") || strings.HasPrefix(line, ":") {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			return fmt.Errorf("not an SSE line: %q", line)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return fmt.Errorf("event %q: %w", data, err)
		}
		each(m)
	}
	return sc.Err()
}

// getStream is the session's GET stream and what it brought.
type getStream struct {
	mu  sync.Mutex
	all []map[string]any
}

func (s *wireSession) openGET(t *testing.T) *getStream {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	g := &getStream{}
	go func() {
		defer resp.Body.Close()
		_ = readEvents(resp.Body, func(m map[string]any) {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.all = append(g.all, m)
		})
	}()
	return g
}

// after sends a marker through mcp-go's session channel, which the GET stream reads, waits
// for it there, and returns what the stream brought before it: all that went the same way
// before the marker.
func (g *getStream) after(t *testing.T, srv interface {
	SendNotificationToSpecificClient(string, string, map[string]any) error
}, session, marker string) []map[string]any {
	t.Helper()
	require.NoError(t, srv.SendNotificationToSpecificClient(session, "notifications/message", map[string]any{"level": "info", "data": marker}))
	var before []map[string]any
	farmtest.Eventually(t, 10*time.Second, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		for i, m := range g.all {
			if p, _ := m["params"].(map[string]any); p != nil && p["data"] == marker {
				before = append([]map[string]any(nil), g.all[:i]...)
				return true
			}
		}
		return false
	}, "marker %s on the GET stream", marker)
	var out []map[string]any
	for _, m := range before {
		if p, _ := m["params"].(map[string]any); p == nil || !strings.HasPrefix(fmt.Sprint(p["data"]), "marker") {
			out = append(out, m)
		}
	}
	return out
}

// wireGateway is a gateway of its own over f, in HTTP, and its metrics.
func wireGateway(t *testing.T, f *farmtest.Farm) (*mcp.Gateway, string, *prometheus.Registry) {
	reg := prometheus.NewRegistry()
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(reg), mcp.Options{ProgressEvery: tellEvery})
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	return g, hs.URL + "/mcp", reg
}

// sleepCall is a tools/call of sleep on serial for seconds, with a progress token unless token
// is "".
func sleepCall(id int, serial string, seconds float64, token string) string {
	meta := ""
	if token != "" {
		meta = fmt.Sprintf(`,"_meta":{"progressToken":%q}`, token)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"serial":%q,"seconds":%g}%s}}`,
		id, serial, seconds, meta)
}

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
