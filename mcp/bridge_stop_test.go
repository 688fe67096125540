package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a bytes.Buffer the bridge writes while a test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A signal (ctx cancelled) stops the bridge while its client keeps stdin open: the call in
// flight is answered (with an error: it was cut) and Run returns, where it stayed blocked on
// stdin and answered the next line "unreachable … context canceled".
func TestBridgeStopsWithItsContextWhileStdinStaysOpen(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		<-r.Context().Done() // a long tool call
	}))
	t.Cleanup(srv.Close)
	inR, inW := io.Pipe()
	t.Cleanup(func() { inW.Close() })
	var out lockedBuffer
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- (&Bridge{URL: srv.URL}).Run(ctx, inR, &out) }()

	_, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"sleep"}}`+"\n")
	require.NoError(t, err)
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not reach the gateway")
	}
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the bridge did not stop with its context while stdin stayed open")
	}
	var a bridgeRPCError
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out.String())), &a), "want the call's answer: %q", out.String())
	assert.Equal(t, "call-1", a.ID)
	assert.Contains(t, a.Error.Message, "context canceled")
}
