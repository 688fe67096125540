package broker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// A gateway that knows no node hears no heartbeat whose silence would make it ask its server:
// it asked none, and its /readyz said 200 through a stall of its link. It asks once its
// server's last answer is probeAfter old, so it says the server does not answer, and drops
// the stalled connection, with no node as with one.
func TestGatewayWithNoNodeSaysItsServerDoesNotAnswer(t *testing.T) {
	s := openStores(t)
	link := startStallLink(t, s.JS.Conn().ConnectedAddr())
	gwNC, err := nats.Connect("nats://"+link.addr, nats.SetCustomDialer(newDroppableDialer()), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(gwNC.Close)
	gs, err := EnsureStores(t.Context(), gwNC, StoreOptions{})
	require.NoError(t, err)
	c := startClient(t, gs, ClientOptions{})
	require.Empty(t, c.Nodes(), "this test is of a gateway that knows no node")
	reconnects := gwNC.Stats().Reconnects

	link.stall()
	stalled := time.Now()
	require.Eventually(t, func() bool {
		err := c.Ready()
		return err != nil && strings.Contains(err.Error(), "the NATS server does not answer (stalled for ")
	}, 4*time.Second, 10*time.Millisecond, "a gateway with no node stays ready through a stall of its link (%v)", c.Ready())
	t.Logf("not ready %s into the stall: %v", time.Since(stalled).Round(time.Millisecond), c.Ready())
	require.Eventually(t, func() bool { return !gwNC.IsConnected() || gwNC.Stats().Reconnects > reconnects }, 6*time.Second,
		10*time.Millisecond, "the gateway never dropped its stalled connection")

	link.resume()
	ctx, cancel := context.WithTimeout(t.Context(), waitLong)
	defer cancel()
	for c.Ready() != nil {
		select {
		case <-ctx.Done():
			t.Fatalf("not ready again after the link healed: %v", c.Ready())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
