package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Before the registry's first read, a call waits for it (and is answered then), while the
// probes answer at once; a call whose caller gives up first is told why.
func TestCallsWaitForTheRegistrysFirstRead(t *testing.T) {
	read := make(chan struct{})
	srv := httptest.NewServer(afterRegistry(read, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "answered "+r.URL.Path)
	})))
	t.Cleanup(srv.Close)
	get := func(ctx context.Context, path string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}

	for _, probe := range []string{"/healthz", "/readyz", "/metrics"} {
		code, body, err := get(t.Context(), probe)
		require.NoError(t, err)
		assert.Equal(t, "answered "+probe, body, "%s before the read: %d", probe, code)
	}

	answered := make(chan string, 1)
	go func() {
		_, body, err := get(t.Context(), "/mcp")
		if err != nil {
			body = err.Error()
		}
		answered <- body
	}()
	select {
	case body := <-answered:
		t.Fatalf("a call was answered before the registry's first read: %s", body)
	case <-time.After(100 * time.Millisecond): // a call that would be answered is answered in well under this
	}
	close(read)
	select {
	case body := <-answered:
		assert.Equal(t, "answered /mcp", body)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting call was not answered after the registry's first read")
	}
}

// A caller that gives up while the gateway starts gets a 503 saying why, not a hang.
func TestCallGivenUpBeforeTheRegistrysReadSaysWhy(t *testing.T) {
	rec := httptest.NewRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/mcp", nil)
	afterRegistry(make(chan struct{}), http.NotFoundHandler()).ServeHTTP(rec, req)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Contains(t, rec.Body.String(), "has not read the device registry yet")
}
