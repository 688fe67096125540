package broker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A gateway whose link to NATS stalls (cut without a reset: QA's netns cut) is not ready while
// its server does not answer, though nats.go still shows the connection up, and it makes a new
// connection rather than wait for the stalled one's TCP backoff once the link heals.
func TestGatewayWhoseServerDoesNotAnswerIsNotReadyAndReconnects(t *testing.T) {
	var link broker.StallLink
	f := startRoutedLossFarm(t, 1, func(addr string) func(string, string) string {
		link = broker.StartStallLink(t, addr)
		return func(part, url string) string {
			if part == "gateway-0" {
				return link.URL()
			}
			return url
		}
	}, "n1")
	gw := f.gateways[0]
	require.NoError(t, gw.client.Ready())
	reconnects := gw.nc.Stats().Reconnects

	link.Stall()
	stalled := time.Now()
	require.Eventually(t, func() bool {
		err := gw.client.Ready()
		return err != nil && strings.Contains(err.Error(), "the NATS server does not answer (stalled for ")
	}, 4*time.Second, 10*time.Millisecond, "the gateway did not say its server does not answer (%v)", gw.client.Ready())
	t.Logf("not ready %s into the stall: %v", time.Since(stalled).Round(time.Millisecond), gw.client.Ready())
	require.Eventually(t, func() bool { return gw.client.Ready() != nil && !gw.nc.IsConnected() }, 5*time.Second, 10*time.Millisecond,
		"the gateway never dropped its stalled connection")

	link.Resume()
	resumed := time.Now()
	require.Eventually(t, func() bool { return gw.client.Ready() == nil }, 5*time.Second, 10*time.Millisecond,
		"the gateway not ready again after the link healed: %v", gw.client.Ready())
	ans, err := gw.client.Acquire(t.Context(), broker.AcquireRequest{V: broker.WireVersion, Serial: "n1-p1", Holder: broker.Holder{Principal: "alice"}})
	require.NoError(t, err)
	require.True(t, ans.OK, "%+v", ans)
	require.Less(t, time.Since(resumed), 3*time.Second, "a call after the heal took too long")
	require.Greater(t, gw.nc.Stats().Reconnects, reconnects, "the gateway kept its stalled connection")
	require.NotEmpty(t, f.logs.lines("reconnecting to NATS: the server has not answered this process for"), "the reconnection not logged")
}
