package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An answer stream cut after a notification (the gateway killed, the network gone) gets the
// request an error answer saying the call may have run, not silence the agent waits on for
// ever; a batch's requests answered before the cut keep their answers alone.
func TestBridgeAnswersARequestWhoseStreamWasCut(t *testing.T) {
	srv := cutServer(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n")
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n\n")
		w.(http.Flusher).Flush() // then cut mid-stream: no final chunk
	})
	for _, c := range []struct{ name, in, want string }{
		{"one request", `{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"sleep"}}`, `"call-1"`},
		{"a batch", `[{"jsonrpc":"2.0","id":7,"method":"tools/call"},{"jsonrpc":"2.0","id":8,"method":"ping"}]`, `7`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := bridgeAnswersBy(t, &Bridge{URL: srv.URL}, c.in)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.Len(t, lines, 3, "the notification, the answer to 8, and an error for the cut request: %s", out)
			assert.Contains(t, lines[0], "notifications/progress")
			var cut []bridgeRPCError
			if strings.HasPrefix(lines[2], "[") {
				require.NoError(t, json.Unmarshal([]byte(lines[2]), &cut), lines[2])
			} else {
				cut = make([]bridgeRPCError, 1)
				require.NoError(t, json.Unmarshal([]byte(lines[2]), &cut[0]), lines[2])
			}
			require.Len(t, cut, 1, "only the unanswered request is answered again: %s", lines[2])
			id, _ := json.Marshal(cut[0].ID)
			assert.Equal(t, c.want, string(id))
			assert.Contains(t, cut[0].Error.Message, "answer stream ended before the answer")
			assert.Contains(t, cut[0].Error.Message, "may have run on the device")
		})
	}
}

// cutServer answers every request by reading it whole, writing head, and dropping the
// connection, as a gateway killed or a network lost mid-answer does.
func cutServer(t *testing.T, head func(w http.ResponseWriter)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the request arrived whole
		head(w)
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// bridgeAnswersBy runs b on the line in and returns what it wrote; a bridge still waiting a
// minute later fails the test (it waited for ever).
func bridgeAnswersBy(t *testing.T, b *Bridge, in string) string {
	t.Helper()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- b.Run(t.Context(), strings.NewReader(in+"\n"), &out) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("the bridge still waits on a failed request")
	}
	return out.String()
}
