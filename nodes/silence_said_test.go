package nodes

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// Round trips that do not come back (the NATS server is gone) leave the node silent, taking
// what comes as possibly answered already: it says so once, not once a round trip, and not
// before one has failed.
func TestRoundTripsThatDoNotComeBackAreSaidOnce(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "node-n1"}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)

	var said logtest.Buffer
	s := newSilence(slog.New(slog.NewTextHandler(&said, nil)))
	s.connected()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.watch(ctx, nc) }()
	t.Cleanup(func() { cancel(); <-done })

	const line = "a round trip to NATS did not come back within"
	require.Eventually(t, func() bool { return time.Duration(s.now()-s.heard.Load()) < broker.HeartbeatInterval },
		10*time.Second, 10*time.Millisecond, "a round trip while the server runs")
	require.False(t, s.mayHaveBeenLost(), "round trips come back, yet the node takes itself for silent")
	require.Empty(t, said.Line(line), "said before a round trip failed")

	ns.Shutdown()
	ns.WaitForShutdown()
	// Long enough for at least two round trips to have failed (each is given silentAfter).
	require.Eventually(t, func() bool { return time.Duration(s.now()-s.heard.Load()) > 2*silentAfter+broker.HeartbeatInterval },
		20*time.Second, 10*time.Millisecond, "silent for two round trips")
	require.True(t, s.mayHaveBeenLost() && s.heldThrough(), "round trips do not come back, yet the node takes its requests as before")
	require.Equal(t, 1, strings.Count(said.String(), line), "what the node said:\n%s", said.String())
}
