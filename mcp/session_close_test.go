package mcp

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// sweeperOf is the done channel of g's running session sweeper (nil: none runs).
func sweeperOf(g *Gateway) chan struct{} {
	g.sessions.mu.Lock()
	defer g.sessions.mu.Unlock()
	return g.sessions.sweeper
}

// waitClosed fails the test unless done closes within a generous deadline.
func waitClosed(t *testing.T, done chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal(what)
	}
}

// A closed gateway's session sweeper ends at once, not when its last session expires (here
// in an hour): a stopped gateway in a process that lives on left it running. Requests still
// coming are served, and a sweeper one starts ends at once.
func TestClosedGatewayEndsItsSessionSweeper(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{Limits: Limits{SessionTTL: time.Hour}})
	h.initialize(t)
	done := sweeperOf(h.g)
	require.NotNil(t, done, "a live session starts the sweeper")

	h.g.Close()
	waitClosed(t, done, "the session sweeper runs on after Close")
	h.g.Close() // again: nothing more to do

	h.initialize(t)
	require.Equal(t, 2, h.g.sessions.count())
	if done := sweeperOf(h.g); done != nil {
		waitClosed(t, done, "a sweeper started after Close runs on")
	}
}

// The front door's server closes its gateway when it shuts down, as corral's stop does: no
// other call is needed to end the sweeper.
func TestFrontDoorShutdownClosesTheGateway(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), m, Options{Limits: Limits{SessionTTL: time.Hour}})
	hs := httptest.NewUnstartedServer(nil)
	hs.Config = g.HTTPServer()
	hs.Start()
	t.Cleanup(hs.Close)
	h := &httpGateway{g: g, srv: hs, logs: &logtest.Buffer{}, metrics: m}
	h.initialize(t)
	done := sweeperOf(g)
	require.NotNil(t, done, "a live session starts the sweeper")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, hs.Config.Shutdown(ctx))
	waitClosed(t, done, "the session sweeper runs on after the front door's Shutdown")
}
