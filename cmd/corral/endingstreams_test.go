package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The GET streams a stopping gateway ends end cleanly for their clients: net/http writes the
// terminating chunk (a write deadline of now cut it, and clients read "unexpected EOF").
func TestStoppedGatewayEndsStreamsCleanly(t *testing.T) {
	stop, stopNow := context.WithCancel(t.Context())
	streaming := make(chan struct{})
	srv := httptest.NewServer(endingStreams(stop, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, ": open\n\n")
		w.(http.Flusher).Flush()
		close(streaming)
		<-r.Context().Done() // a listen stream never ends by itself
	})))
	t.Cleanup(srv.Close)

	resp, err := srv.Client().Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	ended := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.Body)
		ended <- err
	}()
	<-streaming
	stopNow()
	select {
	case err := <-ended:
		require.NoError(t, err, "not a clean end of stream")
	case <-time.After(10 * time.Second):
		t.Fatal("the stream stayed open after the stop")
	}
}
