package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawAnswer is one HTTP answer of the gateway.
type rawAnswer struct {
	status int
	header http.Header
	body   string
}

// raw sends one request to the gateway over HTTP and reads the whole answer (a stream is an
// error: these requests must not open one).
func (h *httpGateway) raw(t *testing.T, method, body string, header map[string]string) rawAnswer {
	t.Helper()
	a := h.send(t, method, body, header)
	if ct := a.header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("%s answered %d with a stream", method, a.status)
	}
	return a
}

// send sends one request to the gateway over HTTP and reads the whole answer, a stream (a
// call's notifications, then its result) or one JSON message.
func (h *httpGateway) send(t *testing.T, method, body string, header map[string]string) rawAnswer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.srv.URL+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := h.srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return rawAnswer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// initialize opens a protocol session and returns its id.
func (h *httpGateway) initialize(t *testing.T) string {
	t.Helper()
	a := h.raw(t, http.MethodPost, initializeBody, nil)
	require.Equal(t, http.StatusOK, a.status, a.body)
	id := a.header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	return id
}

// rpcErr decodes a JSON-RPC error answer.
func rpcErr(t *testing.T, body string) (code int, msg string) {
	t.Helper()
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &e), body)
	return e.Error.Code, e.Error.Message
}

// A GET without Mcp-Session-Id is a 400 that says to initialize (mcp-go opened a stream
// under a made-up session that was held until the client went), and a DELETE without one is a
// 400 that says so (mcp-go: 500 "Session termination failed").
func TestGetAndDeleteWithoutSessionAre400(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})

	get := h.raw(t, http.MethodGet, "", map[string]string{"Accept": "text/event-stream"})
	assert.Equal(t, http.StatusBadRequest, get.status, get.body)
	_, msg := rpcErr(t, get.body)
	assert.Contains(t, msg, "no Mcp-Session-Id")
	assert.Contains(t, msg, "send initialize first")

	del := h.raw(t, http.MethodDelete, "", nil)
	assert.Equal(t, http.StatusBadRequest, del.status, del.body)
	_, msg = rpcErr(t, del.body)
	assert.Contains(t, msg, "no Mcp-Session-Id")
	assert.Contains(t, msg, "nothing was ended")

	session := h.initialize(t)
	del = h.raw(t, http.MethodDelete, "", map[string]string{"Mcp-Session-Id": session})
	assert.Equal(t, http.StatusOK, del.status, del.body)
}

// openStream opens a GET stream of a session; its channel closes when the stream ends.
func (h *httpGateway) openStream(t *testing.T, session string) <-chan struct{} {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, h.srv.URL+"/mcp", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := h.srv.Client().Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return ended
}

// A session keeps at most two GET streams: a third closes its oldest (mcp-go kept them all,
// open as long as the client, so one session could take every connection), and a DELETE of
// the session closes them.
func TestSessionKeepsAtMostTwoGetStreams(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session, other := h.initialize(t), h.initialize(t)
	first, second := h.openStream(t, session), h.openStream(t, session)
	elsewhere := h.openStream(t, other)
	third := h.openStream(t, session)
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("a session's third GET stream left its first open")
	}
	for name, s := range map[string]<-chan struct{}{"second": second, "third": third, "other session's": elsewhere} {
		select {
		case <-s:
			t.Errorf("the %s stream ended", name)
		default:
		}
	}
	fourth := h.openStream(t, session)
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		t.Fatal("a session's fourth GET stream left its second open")
	}

	// mcp-go forgot a DELETEd session but left its streams open.
	del := h.raw(t, http.MethodDelete, "", map[string]string{"Mcp-Session-Id": session})
	require.Equal(t, http.StatusOK, del.status, del.body)
	for _, s := range []<-chan struct{}{third, fourth} {
		select {
		case <-s:
		case <-time.After(10 * time.Second):
			t.Fatal("a DELETEd session's GET stream stayed open")
		}
	}
	select {
	case <-elsewhere:
		t.Error("another session's stream ended with the DELETE")
	default:
	}
}

// Requests that mcp-go answered in Go's words get the protocol's: params that are not an
// object, a progress token beyond float64, a list cursor never given, a JSON-RPC response
// from the client (mcp-go logged it at ERROR as a sampling answer), a batch without a session
// and an unknown Mcp-Protocol-Version.
func TestProtocolErrorsInProtocolWords(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session := h.initialize(t)
	withSession := map[string]string{"Mcp-Session-Id": session}
	goWords := []string{"Go value", "Go struct", "json:", "illegal base64", "mcp.params", "float64"}
	check := func(t *testing.T, name string, a rawAnswer, status, code int, want ...string) {
		t.Helper()
		assert.Equal(t, status, a.status, "%s: %s", name, a.body)
		gotCode, msg := rpcErr(t, a.body)
		assert.Equal(t, code, gotCode, "%s: %s", name, a.body)
		for _, w := range want {
			assert.Contains(t, msg, w, name)
		}
		for _, w := range goWords {
			assert.NotContains(t, msg, w, name)
		}
	}

	t.Run("params", func(t *testing.T) {
		for _, params := range []string{`[]`, `"tap_xy"`} {
			a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":`+params+`}`, withSession)
			check(t, "params "+params, a, http.StatusOK, -32602, "params must be an object with name and arguments")
			assert.Contains(t, a.body, `"id":3`)
		}
	})
	t.Run("progressToken", func(t *testing.T) {
		a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_available_devices","arguments":{},"_meta":{"progressToken":1e999}}}`, withSession)
		check(t, "progressToken", a, http.StatusOK, -32602, "progressToken must be a string or an integer")
	})
	t.Run("cursor", func(t *testing.T) {
		a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"zzz"}}`, withSession)
		check(t, "cursor", a, http.StatusOK, -32602, "cursor is not one this gateway gave", "nextCursor of the previous page")
	})
	t.Run("response", func(t *testing.T) {
		before := strings.Count(h.logs.String(), "level=ERROR")
		a := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"no"}}`, withSession)
		assert.Equal(t, before, strings.Count(h.logs.String(), "level=ERROR"), "a client's response logged at ERROR")
		check(t, "response", a, http.StatusBadRequest, -32600, "this server sends clients no requests", "a JSON-RPC response")
		ping := h.raw(t, http.MethodPost, `{"jsonrpc":"2.0","id":9,"result":{}}`, withSession) // a ping's answer
		assert.Equal(t, http.StatusAccepted, ping.status, ping.body)
	})
	t.Run("batch", func(t *testing.T) {
		a := h.raw(t, http.MethodPost, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, nil)
		require.Equal(t, http.StatusOK, a.status, a.body)
		var answers []json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(a.body), &answers), a.body)
		require.Len(t, answers, 2)
		for _, m := range answers {
			_, msg := rpcErr(t, string(m))
			assert.Contains(t, msg, "send initialize first")
			assert.NotContains(t, msg, "Invalid session ID")
		}
	})
	t.Run("version", func(t *testing.T) {
		for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
			body := ""
			if method == http.MethodPost {
				body = `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`
			}
			a := h.raw(t, method, body, map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": "1999-01-01"})
			check(t, method+" version", a, http.StatusBadRequest, -32022, `"1999-01-01"`, "2025-06-18", "2025-03-26")
		}
		// initialize too: only a header naming the revision its body asks for negotiates there
		a := h.raw(t, http.MethodPost, strings.Replace(initializeBody, "2025-03-26", "2025-06-18", 1), map[string]string{"Mcp-Protocol-Version": "1999-01-01"})
		check(t, "initialize version", a, http.StatusBadRequest, -32022, `"1999-01-01"`, "2025-06-18", "2025-03-26")
	})
}
