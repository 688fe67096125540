package mcp_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

const (
	initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	toolsList         = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	endedWords        = "session ended by DELETE: send initialize without Mcp-Session-Id to open a new session"
)

// anotherGateway starts one more gateway of f's farm (its own NATS connection and client) and
// returns its /mcp URL.
func anotherGateway(t *testing.T, f *farmtest.Farm) string {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "another-gateway"}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	c, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{Log: log, Reap: true, Metrics: broker.NewClientMetrics(reg)})
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(ctx))
	hs := httptest.NewServer(mcp.New(c, log, mcp.NewMetrics(reg), mcp.Options{Ready: c.Ready, Gatherer: reg}).Handler())
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	return hs.URL + "/mcp"
}

// send sends one request of session (none if empty) to a gateway's /mcp and returns its answer.
func send(t *testing.T, url, method, session, body string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// openSession initializes a session on a gateway and returns its id.
func openSession(t *testing.T, url string) string {
	t.Helper()
	status, header, body := send(t, url, http.MethodPost, "", initializeRequest)
	require.Equal(t, http.StatusOK, status, body)
	id := header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	return id
}

// openStream opens a GET stream of session; its channel closes when the stream ends.
func openStream(t *testing.T, url, session string) <-chan struct{} {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	resp, err := http.DefaultClient.Do(req)
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

// A client's DELETE ends its session on every gateway of the farm: the gateway that answered
// it, one that had the session live (it learns of the end from NATS, and ends its GET stream), one that takes it up
// afterwards and one started afterwards all answer 404 in the transport's words, so the
// client opens a new session, which works. Ids carry their own proof, so the id worked on
// after a DELETE, everywhere.
func TestDeleteEndsTheSessionOnEveryGateway(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	a, b := f.Gateway().MCPURL, anotherGateway(t, f)

	shared, other := openSession(t, a), openSession(t, a)
	for _, url := range []string{a, b} { // live on both
		status, _, body := send(t, url, http.MethodPost, shared, toolsList)
		require.Equal(t, http.StatusOK, status, body)
	}
	stream := openStream(t, b, shared)

	status, _, body := send(t, a, http.MethodDelete, shared, "")
	require.Equal(t, http.StatusOK, status, body)
	refused := func(url, method, session, body string) bool {
		status, _, answer := send(t, url, method, session, body)
		return status == http.StatusNotFound && strings.Contains(answer, endedWords)
	}
	assert.True(t, refused(a, http.MethodPost, shared, toolsList), "POST on the gateway that ended it")
	assert.True(t, refused(a, http.MethodGet, shared, ""), "GET on the gateway that ended it")
	assert.True(t, refused(a, http.MethodDelete, shared, ""), "DELETE again")
	farmtest.Eventually(t, 10*time.Second, func() bool { return refused(b, http.MethodPost, shared, toolsList) },
		"the gateway that had the session live refuses it")
	select {
	case <-stream:
	case <-time.After(10 * time.Second):
		t.Error("the session's GET stream on the other gateway stayed open")
	}

	status, _, body = send(t, a, http.MethodDelete, other, "")
	require.Equal(t, http.StatusOK, status, body)
	assert.True(t, refused(b, http.MethodPost, other, toolsList), "the gateway taking the session up at once refuses it")
	later := anotherGateway(t, f)
	assert.True(t, refused(later, http.MethodPost, shared, toolsList), "a gateway started later refuses it")

	for _, url := range []string{a, b, later} {
		fresh := openSession(t, url)
		status, _, body := send(t, url, http.MethodPost, fresh, toolsList)
		assert.Equal(t, http.StatusOK, status, body)
	}
}
