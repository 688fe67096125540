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

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// An MCP session spoken in raw HTTP, to see which stream each message takes.

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

// count is how many of the answer's messages are notifications of method.
func (a wireAnswer) count(method string) int {
	n := 0
	for _, m := range a.msgs {
		if m["method"] == method {
			n++
		}
	}
	return n
}

// answers says whether the answer's last message is the answer to id.
func (a wireAnswer) answers(id int) bool {
	return len(a.msgs) > 0 && a.msgs[len(a.msgs)-1]["id"] == float64(id)
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

// wireGateway is a gateway of its own over f, in HTTP, that tells waiting calls every
// tellEvery, and its metrics.
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
