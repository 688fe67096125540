package broker

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/tcplink"
)

// A connect to a server that accepts the connection but never answers ends as its context
// ends, not at nats.go's connect timeout (2 s): a command's Ctrl-C waited that out.
func TestConnectContextStopsAnUnansweredConnect(t *testing.T) {
	addr, accepted := tcplink.Mute(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	go func() {
		<-accepted // the try is under way: nats.go waits for the server's INFO
		cancelled <- time.Now()
		cancel()
	}()
	nc, err := ConnectContext(ctx, ConnectOptions{URL: "nats://" + addr, Name: "t"}, slog.New(slog.DiscardHandler))
	returned := time.Now()
	require.Nil(t, nc)
	var at time.Time
	select {
	case at = <-cancelled:
	default:
		t.Fatalf("returned before the server accepted the connection: %v", err)
	}
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "stopped before NATS answered")
	assert.Contains(t, err.Error(), addr, "the error names the server")
	// Well within the connect timeout: a connect that ran it out returns about a timeout later.
	assert.Less(t, returned.Sub(at), nats.DefaultTimeout/2, "the connect ran on after its context ended")
}

// ctx bounds the connect only: the connection it made outlives it, and reconnects after a cut.
func TestConnectContextLeavesTheConnectionItMade(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	ctx, cancel := context.WithCancel(t.Context())
	nc, err := ConnectContext(ctx, ConnectOptions{URL: ns.ClientURL(), Name: "t"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer nc.Close()
	cancel()
	require.NoError(t, dropperOf(nc)()) // as a stalled link is dropped: nats.go dials again
	require.Eventually(t, func() bool { return nc.Stats().Reconnects > 0 && nc.IsConnected() }, 20*time.Second, 10*time.Millisecond,
		"no reconnect after the cut: the dialer still dials within the ended context")
	require.NoError(t, nc.FlushTimeout(10*time.Second))
}
