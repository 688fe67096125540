package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// freeWithin bounds how long after a cancel or abort_task a long call in these tests may take to
// end and free its device. It is a check of behaviour, not of speed: every such call would run
// a minute or more if the cancel did not reach the device (a 60 s sleep, a device command held
// a minute, a download that never ends), so a bound a sixth of that still fails a cancel that
// waits for the task to end or never reaches the driver, while a loaded 2-core machine under
// -race, where the trip has taken 0.9 s, stays far within it. How fast a cancel is, is
// measured by BenchmarkAbort in bench/ and reported by `make bench` against its 200 ms target.
const freeWithin = 10 * time.Second

// Every kind of long call (sleep, app_install, sequence) is cancelled on the device and frees
// it long before it would have ended by itself, whichever way the caller cancels:
// notifications/cancelled, closing the HTTP stream, or abort_task from another client. The
// call never reports success.
func TestCancelLongCalls(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	phone := f.Phone(serial)
	op := f.Client("operator")

	// An app server that sends a little, then nothing until the caller goes away.
	var downloads atomic.Int64
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		downloads.Add(1)
		w.Header().Set("Content-Length", "10000000")
		_, _ = w.Write([]byte("PK\x03\x04"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer stalled.Close()

	busy := func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateBusy
	}
	// Each kind says when it is surely running on the device.
	kinds := []struct {
		name    string
		tool    string
		args    map[string]any
		setup   func()
		running func() bool
	}{
		{"sleep", "sleep", args("serial", serial, "seconds", 60), func() {}, busy},
		{"app_install", "app_install", args("serial", serial, "appUrl", stalled.URL+"/slow.apk"),
			func() { downloads.Store(0) }, func() bool { return downloads.Load() > 0 }},
		{"sequence", "sequence", args("serial", serial, "step1", map[string]any{"tool_name": "tap", "arg": []any{0.1, 0.1, 0.2, 0.2}},
			"step2", map[string]any{"tool_name": "tap", "arg": []any{0.3, 0.3, 0.4, 0.4}}),
			func() { phone.SetDelay(time.Minute) }, func() bool { return phone.InFlight() > 0 }},
	}
	// Each way of cancelling says whether the caller still hears the call's end: after abort_task
	// its stream stays open and must carry an error; a server may leave a call cancelled by
	// notifications/cancelled unanswered (mcp-go answers it with an error); a closed stream hears
	// nothing. Whichever, the node's record of the task must say it was aborted.
	cancels := map[string]struct {
		cancel  func(s *rpcSession, id int, stop context.CancelFunc)
		answers bool
	}{
		"notifications/cancelled": {func(s *rpcSession, id int, _ context.CancelFunc) {
			s.notify(t, "notifications/cancelled", map[string]any{"requestId": id, "reason": "test"})
		}, false},
		"closed stream": {func(_ *rpcSession, _ int, stop context.CancelFunc) { stop() }, false},
		"abort_task": {func(*rpcSession, int, context.CancelFunc) {
			farmtest.MustCall(t, op, "abort_task", args("serial", serial))
		}, true},
	}
	records := taskRecords(t, f.URL, "cancel-test")
	for _, k := range kinds {
		for how, c := range cancels {
			t.Run(k.name+"/"+how, func(t *testing.T) {
				farmtest.Eventually(t, 5*time.Second, func() bool { return !busy() }, "the device is free before the test")
				s := newRPCSession(t, f.Gateway().MCPURL)
				begun := time.Now()
				k.setup()
				ctx, stop := context.WithCancel(t.Context())
				defer stop()
				answer := make(chan rpcAnswer, 1)
				go func() { answer <- s.call(ctx, 7, k.tool, k.args) }()
				farmtest.Eventually(t, 5*time.Second, k.running, "%s runs", k.tool)
				phone.SetDelay(0)
				start := time.Now()
				c.cancel(s, 7, stop)
				for {
					res := farmtest.Call(t, op, "get_screen_size", args("serial", serial))
					if !res.IsError {
						break
					}
					if time.Since(start) > freeWithin {
						t.Fatalf("the device is still busy %v after the cancel: %s", freeWithin, farmtest.Text(res))
					}
					time.Sleep(5 * time.Millisecond)
				}

				var a rpcAnswer
				select {
				case a = <-answer:
				case <-time.After(freeWithin): // the device is free: the answer is due
					if c.answers {
						t.Fatalf("no answer to the cancelled %s %v after its device was free", k.tool, freeWithin)
					}
					stop() // unanswered, as a server may leave a call the caller cancelled
					a = <-answer
				}
				if msg, found := a.message(7); !found && c.answers {
					t.Errorf("the cancelled call ended without an answer (%v): %q", a.err, a.body)
				} else if found && msg.Error == nil && (msg.Result == nil || !msg.Result.IsError) {
					t.Errorf("the cancelled call succeeded: %q", a.body)
				}
				for timeout := time.After(freeWithin); ; {
					var rec broker.TaskResult
					select {
					case rec = <-records:
					case <-timeout:
						t.Fatalf("no record of the cancelled %s %v after its answer", k.tool, freeWithin)
					}
					if rec.Submitted.Before(begun) {
						continue // an earlier subtest's
					}
					if rec.Tool != k.tool || rec.Outcome != broker.OutcomeAborted {
						t.Errorf("the node recorded %s %s (%s); want %s aborted", rec.Tool, rec.Outcome, rec.Error, k.tool)
					}
					break
				}
			})
		}
	}
}

// taskRecords delivers the record of every task that client ran, as the nodes write it.
func taskRecords(t *testing.T, url, client string) <-chan broker.TaskResult {
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	out := make(chan broker.TaskResult, 16)
	_, err = nc.Subscribe(fmt.Sprintf(broker.EventTaskT, "*", "*"), func(m *nats.Msg) {
		var r broker.TaskResult
		if err := json.Unmarshal(m.Data, &r); err != nil {
			t.Errorf("task record %s: %v", m.Data, err)
			return
		}
		if r.Holder.Client == client {
			out <- r
		}
	})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	return out
}

// rpcSession speaks raw JSON-RPC to the gateway, so that the test chooses how a call ends.
type rpcSession struct {
	url, id string
	http    *http.Client
}

func newRPCSession(t *testing.T, url string) *rpcSession {
	s := &rpcSession{url: url, http: &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(s.http.CloseIdleConnections)
	resp := s.post(t.Context(), t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": mcpgo.ProtocolVersion20250618, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "cancel-test", "version": "1"}}})
	s.id = resp.Header.Get(mcpgo.HeaderSessionID)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if s.id == "" {
		t.Fatal("initialize gave no session id")
	}
	s.notify(t, "notifications/initialized", nil)
	return s
}

func (s *rpcSession) post(ctx context.Context, t *testing.T, msg map[string]any) *http.Response {
	body, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set(mcpgo.HeaderSessionID, s.id)
		req.Header.Set(mcpgo.HeaderProtocolVersion, mcpgo.ProtocolVersion20250618)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return &http.Response{Body: io.NopCloser(bytes.NewReader(nil))}
		}
		t.Errorf("%v: %v", msg["method"], err)
		return &http.Response{Body: io.NopCloser(bytes.NewReader(nil))}
	}
	return resp
}

func (s *rpcSession) notify(t *testing.T, method string, params map[string]any) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	resp := s.post(t.Context(), t, msg)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// rpcAnswer is what a call heard: the body read until the stream ended, and why it ended early.
type rpcAnswer struct {
	body string
	err  error
}

// rpcMessage is a JSON-RPC answer.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *mcpgo.JSONRPCErrorDetails `json:"error"`
}

// message finds the answer to call id in the body, sent as JSON or as server-sent events.
func (a rpcAnswer) message(id int) (rpcMessage, bool) {
	datas := []string{a.body}
	if strings.HasPrefix(strings.TrimSpace(a.body), "event:") || strings.HasPrefix(strings.TrimSpace(a.body), "data:") {
		datas = nil
		for line := range strings.Lines(a.body) {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				datas = append(datas, d)
			}
		}
	}
	for _, d := range datas {
		var m rpcMessage
		if json.Unmarshal([]byte(d), &m) == nil && string(m.ID) == strconv.Itoa(id) {
			return m, true
		}
	}
	return rpcMessage{}, false
}

// call sends tools/call and returns what it answers until it ends or ctx does.
func (s *rpcSession) call(ctx context.Context, id int, tool string, args map[string]any) rpcAnswer {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		return rpcAnswer{err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return rpcAnswer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcpgo.HeaderSessionID, s.id)
	req.Header.Set(mcpgo.HeaderProtocolVersion, mcpgo.ProtocolVersion20250618)
	resp, err := s.http.Do(req)
	if err != nil {
		return rpcAnswer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return rpcAnswer{body: string(b), err: err}
}
