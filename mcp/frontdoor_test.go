package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// serve sends one request to h without a network and returns the recorded answer.
func serve(h http.Handler, method, body string, header map[string]string) *httptest.ResponseRecorder {
	// A GET that mcp-go takes for a stream lasts until its context ends: bound it.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, method, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Item 4: sessions no client ends are forgotten (idle TTL, per-principal cap), with mcp-go's
// state: 20,000 initialize calls leave at most MaxSessions live, and the heap does not keep
// them (mcp-go alone kept every one: about 11 KB each).
func TestSessionsAreBoundedByCapAndTTL(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()),
		Options{Limits: Limits{MaxSessions: 50, SessionTTL: time.Minute}})
	clock := &fakeClock{now: time.Now()}
	g.sessions.now = clock.Now
	h := g.Handler()

	first := serve(h, http.MethodPost, initializeBody, nil).Header().Get("Mcp-Session-Id")
	require.NotEmpty(t, first)
	before := heapInUse()
	for range 20000 {
		rec := serve(h, http.MethodPost, initializeBody, nil)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	}
	grown := int64(heapInUse()) - int64(before)
	assert.LessOrEqual(t, g.sessions.count(), 50)
	assert.Less(t, grown, int64(16<<20), "20,000 sessions kept %d bytes of heap", grown)
	// The first session was forgotten by mcp-go too: nothing can be sent to it.
	assert.Error(t, g.server.SendNotificationToSpecificClient(first, "notifications/message", nil))

	// Idle past the TTL, every session is forgotten at the next request.
	live := serve(h, http.MethodPost, initializeBody, nil).Header().Get("Mcp-Session-Id")
	require.NoError(t, g.server.SendNotificationToSpecificClient(live, "notifications/message", nil))
	clock.Add(2 * time.Minute)
	serve(h, http.MethodPost, initializeBody, nil)
	assert.Equal(t, 1, g.sessions.count())
	assert.Error(t, g.server.SendNotificationToSpecificClient(live, "notifications/message", nil))
}

// Item 8: a session id works only for the principal it was issued to; one of another
// principal, or one never issued (mcp-go accepts any well-formed id, and any id on GET), gets
// 404 before mcp-go sees it.
func TestSessionIDsAreBoundToTheirPrincipal(t *testing.T) {
	farm := newFakeFarm(t)
	hg := startHTTPGateway(t, farm, Options{Policy: testPolicy(t)})
	h := hg.g.Handler()
	bearer := func(token string) map[string]string { return map[string]string{"Authorization": "Bearer " + token} }

	rec := serve(h, http.MethodPost, initializeBody, bearer(labToken))
	require.Equal(t, http.StatusOK, rec.Code)
	labSession := rec.Header().Get("Mcp-Session-Id")
	require.True(t, strings.HasPrefix(labSession, "mcp-session-"), labSession)

	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	withSession := func(token, id string) map[string]string {
		m := bearer(token)
		m["Mcp-Session-Id"] = id
		return m
	}
	assert.Equal(t, http.StatusOK, serve(h, http.MethodPost, list, withSession(labToken, labSession)).Code)
	for name, hdr := range map[string]map[string]string{
		"another principal's": withSession(adminToken, labSession),
		"never issued":        withSession(labToken, "mcp-session-0b5d8b6e-1f2a-4c3d-9e8f-7a6b5c4d3e2f"),
	} {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			rec := serve(h, method, list, hdr)
			assert.Equal(t, http.StatusNotFound, rec.Code, "%s id, %s", name, method)
			assert.True(t, strings.Contains(rec.Body.String(), "session not found"), "%s id, %s: %.200s", name, method, rec.Body.String())
		}
	}
	assert.Equal(t, float64(6), hg.denied(reasonSession))
}

// Item 3: a body over MaxBody gets 413 with a JSON-RPC error, at once when it says its length,
// after MaxBody bytes when it does not (chunked); nothing reaches mcp-go.
func TestBodyOverLimitIs413(t *testing.T) {
	hg := startHTTPGateway(t, newFakeFarm(t), Options{Limits: Limits{MaxBody: 1 << 20}})
	for _, chunked := range []bool{false, true} {
		body := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`), zeros{}) // 64 MiB
		req, err := http.NewRequest(http.MethodPost, hg.srv.URL+"/mcp", io.LimitReader(body, 64<<20))
		require.NoError(t, err)
		if !chunked {
			req.ContentLength = 64 << 20
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hg.srv.Client().Do(req)
		require.NoError(t, err, "chunked %v", chunked)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "chunked %v: %s", chunked, b)
		assert.Contains(t, string(b), "request body too large", "chunked %v", chunked)
		assert.Contains(t, string(b), `"code":-32600`, "chunked %v", chunked)
	}
	assert.Equal(t, float64(2), hg.denied(reasonBody))
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// Item 5: a body that stalls is cut off after ReadTimeout (the server had only a header
// timeout), and a tool call's answer may still take longer than that.
func TestStalledBodyIsCutOff(t *testing.T) {
	farm := newFakeFarm(t)
	farm.RunFn = func(ctx context.Context, req broker.TaskRequest, _ func(broker.Progress)) (broker.TaskResult, error) {
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return broker.TaskResult{}, ctx.Err()
		}
		return broker.TaskResult{ID: req.ID, Serial: req.Serial, Tool: req.Tool, Outcome: broker.OutcomeSucceeded, Data: []byte(`{"message":"ok"}`)}, nil
	}
	g := New(farm, slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{Limits: Limits{ReadTimeout: 300 * time.Millisecond}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := g.HTTPServer()
	go func() { _ = srv.Serve(g.Listener(ln)) }()
	t.Cleanup(func() { _ = srv.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":")
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(20*time.Second)))
	answer, _ := io.ReadAll(conn) // the gateway answers and closes, or just closes
	assert.Less(t, time.Since(start), 15*time.Second, "the stalled body was held: %q", answer)

	// A call longer than ReadTimeout is not cut: the deadline ended with the body.
	hg := &httpGateway{g: g, srv: &httptest.Server{URL: "http://" + ln.Addr().String()}}
	c := hg.mustConnect(t, "")
	res := call(t, c, "sleep", map[string]any{"serial": "emulator-5554", "seconds": 1})
	assert.False(t, res.IsError, resultText(res))
}

// The listener holds at most MaxConns connections: the next waits until one closes.
func TestListenerCapsConnections(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{Limits: Limits{MaxConns: 2}})
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ln := g.Listener(raw)
	defer ln.Close()
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", raw.Addr().String())
		require.NoError(t, err)
		defer c.Close()
	}
	first, second := <-accepted, <-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted with two open and MaxConns 2")
	case <-time.After(100 * time.Millisecond): // a negative can only be shown by waiting
	}
	require.NoError(t, first.Close())
	third := <-accepted
	third.Close()
	second.Close()
}

// A server stops at once when idle keep-alive connections hold every slot: Shutdown waits for
// Serve to leave Accept, which waited for a slot until an idle connection timed out.
func TestShutdownWithEverySlotHeldByIdleConnections(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()),
		Options{Limits: Limits{MaxConns: 1, IdleTimeout: time.Hour}})
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := g.HTTPServer()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(g.Listener(raw)) }()

	// One request on a keep-alive connection leaves it idle, holding the only slot.
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Get("http://" + raw.Addr().String() + "/healthz")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// The next connection waits in the backlog: Serve is in Accept, waiting for the slot.
	waiting, err := net.Dial("tcp", raw.Addr().String())
	require.NoError(t, err)
	defer waiting.Close()

	// Shutdown's wait for Serve heeds no context: a stuck one is seen by waiting for it.
	stopped := make(chan error, 1)
	go func() { stopped <- srv.Shutdown(context.Background()) }()
	select {
	case err := <-stopped:
		require.NoError(t, err)
	case <-time.After(time.Minute): // the client's deferred close of its connection then frees it
		t.Fatal("Shutdown waits for the idle connection's hour to end")
	}
	require.ErrorIs(t, <-served, http.ErrServerClosed)
}

// At the cap, idle keep-alive connections make room for a new one at once: they held every
// slot until their idle timeout, probes and callers alike waiting behind them.
func TestIdleConnectionsMakeRoomAtTheCap(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), m,
		Options{Limits: Limits{MaxConns: 2, IdleTimeout: time.Hour}})
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := g.HTTPServer()
	go func() { _ = srv.Serve(g.Listener(raw)) }()
	t.Cleanup(func() { _ = srv.Close() })
	url := "http://" + raw.Addr().String() + "/healthz"
	get := func(c *http.Client) error {
		resp, err := c.Get(url)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
	for range 2 { // each client keeps its connection open, idle, after its request
		c := &http.Client{Transport: &http.Transport{}}
		t.Cleanup(c.CloseIdleConnections)
		require.NoError(t, get(c))
	}
	answered := make(chan error, 1)
	go func() { answered <- get(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}) }()
	select {
	case err := <-answered:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("a new connection waits for the idle ones' hour")
	}
	// One newcomer, one connection closed for it: the other idle one stays.
	assert.Equal(t, float64(1), counterValue(t, m.reclaimed))
}

// Minor: a batch is answered per revision: each message for 2025-03-26 (no version header is
// 2025-03-26), an Invalid Request error from 2025-06-18 on (mcp-go answered "not valid json").
func TestBatchesPerProtocolRevision(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{})
	h := g.Handler()
	session := serve(h, http.MethodPost, initializeBody, nil).Header().Get("Mcp-Session-Id")
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]`

	rec := serve(h, http.MethodPost, batch, map[string]string{"Mcp-Session-Id": session})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var answers []map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answers), rec.Body.String())
	require.Len(t, answers, 2)
	assert.Equal(t, float64(1), answers[0]["id"])
	assert.Equal(t, "b", answers[1]["id"])
	assert.NotEmpty(t, answers[1]["result"].(map[string]any)["tools"])

	rec = serve(h, http.MethodPost, batch, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"})
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Contains(t, rec.Body.String(), `"code":-32600`)
	assert.Contains(t, rec.Body.String(), "send one message per POST")

	rec = serve(h, http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}]`, nil)
	assert.Contains(t, rec.Body.String(), "initialize must not be part of a JSON-RPC batch")
}

// Minor: a number beyond float64 in a tool's arguments is an isError result naming the
// argument and its code (bad_input), not a -32600 protocol error.
func TestHugeNumberIsAToolError(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{})
	h := g.Handler()
	session := serve(h, http.MethodPost, initializeBody, nil).Header().Get("Mcp-Session-Id")
	rec := serve(h, http.MethodPost, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"tap_xy","arguments":{"serial":"emulator-5554","x":1e309,"y":0.5}}}`,
		map[string]string{"Mcp-Session-Id": session})
	require.Equal(t, http.StatusOK, rec.Code)
	var answer struct {
		ID     int `json:"id"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error any `json:"error"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer), rec.Body.String())
	assert.Nil(t, answer.Error)
	assert.Equal(t, 5, answer.ID)
	assert.True(t, answer.Result.IsError)
	require.Len(t, answer.Result.Content, 1)
	text := answer.Result.Content[0].Text
	assert.True(t, strings.HasPrefix(text, "tap_xy refused (bad_input): argument x: 1e309 is out of range"), text)
}

// Minor: the readonly profile has no tool that can hold a device for long.
func TestReadOnlyProfileHasNoSleep(t *testing.T) {
	for _, tool := range []string{"sleep", "sleep_ms", "sleep_random"} {
		assert.NotContains(t, toolSets()[profileReadOnly], tool)
	}
	assert.Contains(t, toolSets()[profileReadOnly], "get_screen_size")
}
