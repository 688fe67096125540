package mcp

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/streamend"
)

// readStream opens a GET stream of session with a real HTTP client and reads it to its end;
// the channel gets what io.ReadAll returned: nil for a clean end of stream.
func (h *httpGateway) readStream(t *testing.T, session string) <-chan error {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, h.srv.URL+"/mcp", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := h.srv.Client().Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	ended := make(chan error, 1)
	go func() {
		defer resp.Body.Close()
		_, err := io.ReadAll(resp.Body)
		ended <- err
	}()
	return ended
}

// endOf waits for a stream's end and returns how it ended.
func endOf(t *testing.T, ended <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-ended:
		return err
	case <-time.After(10 * time.Second):
		t.Fatalf("%s stayed open", what)
		return nil
	}
}

// A GET stream the gateway ends, for a DELETE of its session or past the session's cap of
// streams, ends cleanly for the client: net/http writes the terminating chunk (the ending
// cut it with a write deadline of now, and clients read "unexpected EOF").
func TestServerEndedStreamsEndCleanly(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})

	t.Run("DELETE", func(t *testing.T) {
		session := h.initialize(t)
		ended := h.readStream(t, session)
		del := h.raw(t, http.MethodDelete, "", map[string]string{"Mcp-Session-Id": session})
		require.Equal(t, http.StatusOK, del.status, del.body)
		require.NoError(t, endOf(t, ended, "a DELETEd session's stream"), "not a clean end of stream")
	})
	t.Run("cap", func(t *testing.T) {
		session := h.initialize(t)
		first := h.readStream(t, session)
		for range maxListenStreams {
			h.readStream(t, session)
		}
		require.NoError(t, endOf(t, first, "the stream beyond the cap"), "not a clean end of stream")
	})
}

// smallBuffers makes the send buffer of every connection it accepts small, so that a client
// that stops reading holds the server's writes soon.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// streamWriteStuck reports whether mcp-go's GET stream handler waits in a write.
func streamWriteStuck() bool {
	buf := make([]byte, 1<<22)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "handleGet") && strings.Contains(g, "waitWrite") {
			return true
		}
	}
	return false
}

// A GET stream whose client stopped reading, with the server's write stuck on it, still ends
// when its session is DELETEd, within streamend.WriteBound (plus the machine's slowness): its
// connection is closed, so it holds neither the gateway's stop nor a connection slot.
func TestStuckStreamEndsWithinBound(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{})
	srv := httptest.NewUnstartedServer(g.Handler())
	srv.Listener = smallBuffers{srv.Listener}
	var mu sync.Mutex
	closedAt := map[string]time.Time{} // by the client's address
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			mu.Lock()
			closedAt[c.RemoteAddr().String()] = time.Now()
			mu.Unlock()
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	h := &httpGateway{g: g, srv: srv}
	session := h.initialize(t)

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	_, err = fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\n\r\n", srv.Listener.Addr(), session)
	require.NoError(t, err)
	status, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, status, "200")
	// From here on the client reads nothing: the stream's writes fill the socket buffers, then
	// its writer is stuck in a write.
	big := strings.Repeat("x", 64<<10)
	deadline := time.Now().Add(20 * time.Second)
	var stuckSince time.Time // a write waits a moment while the client's window fills
	for stuckSince.IsZero() || time.Since(stuckSince) < 500*time.Millisecond {
		require.True(t, time.Now().Before(deadline), "the stream's writer never got stuck")
		switch {
		case !streamWriteStuck():
			stuckSince = time.Time{}
			_ = g.server.SendNotificationToSpecificClient(session, "notifications/message", map[string]any{"level": "info", "data": big})
		case stuckSince.IsZero():
			stuckSince = time.Now()
		}
		time.Sleep(10 * time.Millisecond) // polling for the stuck write
	}

	del := h.raw(t, http.MethodDelete, "", map[string]string{"Mcp-Session-Id": session})
	require.Equal(t, http.StatusOK, del.status, del.body)
	deleted := time.Now()
	client := conn.LocalAddr().String()
	slack := 5 * time.Second // a loaded machine's
	for {
		mu.Lock()
		at, closed := closedAt[client]
		mu.Unlock()
		if closed {
			t.Logf("the stuck stream ended %s after the DELETE", at.Sub(deleted).Round(time.Millisecond))
			break
		}
		require.True(t, time.Since(deleted) < streamend.WriteBound+slack, "the stuck stream was still open %s after the DELETE", time.Since(deleted))
		time.Sleep(10 * time.Millisecond)
	}
}
