package mcp_test

import (
	"bufio"
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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// rawSession is one MCP session spoken in raw HTTP, to see which stream each message takes.
type rawSession struct {
	url, id string
}

// post sends one message of the session, taking a stream, and returns the messages of the
// answer in order: the SSE events of a stream, or the one JSON message.
func (s *rawSession) post(t *testing.T, body string) []map[string]any {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if s.id == "" {
		s.id = resp.Header.Get("Mcp-Session-Id")
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		if len(strings.TrimSpace(string(b))) == 0 {
			return nil
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m), string(b))
		return []map[string]any{m}
	}
	var out []map[string]any
	require.NoError(t, sseEvents(resp.Body, func(m map[string]any) { out = append(out, m) }))
	return out
}

// sseEvents calls each with the message of every event read from r, until r ends.
func sseEvents(r io.Reader, each func(map[string]any)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return fmt.Errorf("event %q: %w", data, err)
		}
		each(m)
	}
	return sc.Err()
}

// listen opens the session's GET stream and keeps every message it brings.
func (s *rawSession) listen(t *testing.T) *streamed {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got := &streamed{}
	go func() {
		defer resp.Body.Close()
		_ = sseEvents(resp.Body, got.add)
	}()
	return got
}

// streamed are the messages a GET stream brought.
type streamed struct {
	mu  sync.Mutex
	all []map[string]any
}

func (s *streamed) add(m map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.all = append(s.all, m)
}

func (s *streamed) messages() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.all...)
}

// callNotes counts the progress and logging notifications among msgs; answered says whether
// the last message is the answer to id.
func callNotes(msgs []map[string]any, id float64) (progress, logs int, answered bool) {
	for _, m := range msgs {
		switch m["method"] {
		case "notifications/progress":
			progress++
		case "notifications/message":
			logs++
		}
	}
	answered = len(msgs) > 0 && msgs[len(msgs)-1]["id"] == id
	return progress, logs, answered
}

// Every progress and logging notification of a call comes on the stream of the POST that
// carried it, before its answer, even while the session holds a GET stream open: mcp-go sent
// them through the session's one channel, which both streams read, and about half of them
// landed on the GET stream.
func TestCallNotificationsComeOnTheirPOSTStream(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()),
		mcp.Options{ProgressEvery: tellEvery})
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	w := &waitFarm{f: f, serial: f.Devices()[0].Serial, url: hs.URL + "/mcp"}
	holder, handle := w.hold(t)

	s := &rawSession{url: w.url}
	s.post(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.NotEmpty(t, s.id)
	s.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.post(t, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`)
	get := s.listen(t)

	// Calls that wait for the held device (a waiting notification every tellEvery), then are
	// refused as busy.
	id := 10.0
	for i := range 3 {
		id++
		msgs := s.post(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"tools/call","params":{"name":"home","arguments":{"serial":%q,"wait_seconds":0.5},"_meta":{"progressToken":"wait-%d"}}}`, id, w.serial, i))
		progress, _, answered := callNotes(msgs, id)
		assert.True(t, answered, "call %d: the answer is not the last message of its POST: %v", i, msgs)
		assert.Positive(t, progress, "call %d: no progress on its POST stream", i)
		t.Logf("call %d: %d progress notifications on its POST stream", i, progress)
	}
	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	// Calls that report their own progress: with a token as progress, without one as logging
	// messages (the session asked for info).
	for i, meta := range []string{`,"_meta":{"progressToken":"sleep"}`, ``} {
		id++
		msgs := s.post(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"method":"tools/call","params":{"name":"sleep","arguments":{"serial":%q,"seconds":0.3}%s}}`, id, w.serial, meta))
		progress, logs, answered := callNotes(msgs, id)
		assert.True(t, answered, "sleep %d: the answer is not the last message of its POST: %v", i, msgs)
		assert.Positive(t, progress+logs, "sleep %d: no notification on its POST stream: %v", i, msgs)
		t.Logf("sleep %d: %d progress, %d logging notifications on its POST stream", i, progress, logs)
	}

	// Anything sent before it on the session's channel reached the GET stream before it.
	require.NoError(t, g.MCPServer().SendNotificationToSpecificClient(s.id, "notifications/message", map[string]any{"level": "info", "data": "marker"}))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		msgs := get.messages()
		return len(msgs) > 0 && strings.Contains(fmt.Sprint(msgs[len(msgs)-1]), "marker")
	}, "the marker on the GET stream")
	progress, logs, _ := callNotes(get.messages(), 0)
	assert.Zero(t, progress, "progress notifications on the GET stream")
	assert.Equal(t, 1, logs, "logging notifications on the GET stream besides the marker")
}
