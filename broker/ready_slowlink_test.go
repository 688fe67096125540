package broker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A gateway behind a slow link that works (QA: 300–800 ms each way) whose round trips outlast
// the silence checks' 500 ms while a node is silent keeps its connection: a round trip within
// the slow-link rule's 2 s comes back, so the link is slow, not stalled, and dropping it would
// lose the answers in flight. It says so once, and is ready.
func TestGatewayOnASlowLinkKeepsItsConnectionWhileANodeIsSilent(t *testing.T) {
	var link broker.SlowLink
	f := startRoutedLossFarm(t, 1, func(addr string) func(string, string) string {
		link = broker.StartSlowLink(t, addr)
		return func(part, url string) string {
			if part == "gateway-0" {
				return link.URL()
			}
			return url
		}
	}, "n1", "n2")
	gw := f.gateways[0]
	require.NoError(t, gw.client.Ready())
	reconnects := gw.nc.Stats().Reconnects

	link.Slow(400 * time.Millisecond)
	f.nodes["n1"].Kill() // silent: the gateway's checks ask the server, and wait 500 ms only
	slowSaid := "the NATS server answers this process, slowly: a round trip took"
	dropped := "reconnecting to NATS"
	require.Eventually(t, func() bool {
		return len(f.logs.lines(slowSaid)) > 0 || len(f.logs.lines(dropped)) > 0 || gw.nc.Stats().Reconnects != reconnects
	}, 15*time.Second, 10*time.Millisecond, "the gateway's checks never went unanswered over the slow link")
	require.Empty(t, f.logs.lines(dropped), "the gateway dropped a connection that was slow, not stalled")
	require.Equal(t, reconnects, gw.nc.Stats().Reconnects, "the gateway reconnected")
	require.Len(t, f.logs.lines(slowSaid), 1)
	t.Log(f.logs.lines(slowSaid)[0])
	require.Eventually(t, func() bool { return gw.client.Ready() == nil }, 5*time.Second, 10*time.Millisecond,
		"the gateway whose server answers, slowly, is not ready: %v", gw.client.Ready())

	// A call over the slow link meanwhile gets its answer, on the same connection.
	ans, err := gw.client.Acquire(t.Context(), broker.AcquireRequest{V: broker.WireVersion, Serial: "n2-p1", Holder: broker.Holder{Principal: "alice"}})
	require.NoError(t, err)
	require.True(t, ans.OK, "%+v", ans)
	require.Empty(t, f.logs.lines(dropped), "the gateway dropped a connection that was slow, not stalled")
	require.Equal(t, reconnects, gw.nc.Stats().Reconnects, "the gateway reconnected")
	require.Len(t, f.logs.lines(slowSaid), 1, "the slow link said more than once")
}
