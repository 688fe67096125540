package broker_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// startFreshGateway starts another gateway on f, with metrics of its own: what a gateway
// restarted after the losses knows.
func startFreshGateway(t *testing.T, f *lossFarm, name string) *lossGateway {
	t.Helper()
	nc := f.connect(name)
	s, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	c, err := broker.NewClient(t.Context(), nc, s, broker.ClientOptions{Log: f.log.With("part", name), Reap: true, Metrics: broker.NewClientMetrics(reg)})
	require.NoError(t, err)
	return &lossGateway{client: c, metrics: reg, nc: nc}
}

// A gateway started while a node is lost shows it lost (corral_node_lost 1, corral_node_up 0),
// as the registry says, without having heard the loss: CorralNodeLost resolved when the
// gateways restarted, while `corral devices` still showed the node's devices lost. Forgetting
// the node (corral devices forget) clears it, on that gateway and on one started afterwards; a
// node alive is not shown lost.
func TestGatewayStartedWhileANodeIsLostShowsItLost(t *testing.T) {
	f := startLossFarm(t, 1, "n4", "n5")
	f.nodes["n4"].Kill()
	old := f.gateways[0]
	require.Eventually(t, func() bool {
		d, ok := old.client.Device("n4-p1")
		return f.metric(old, "corral_node_lost", "n4") == 1 && ok && broker.DeclaredLost(d)
	}, 20*time.Second, 10*time.Millisecond, "n4 declared lost, its phone offline for it")

	fresh := startFreshGateway(t, f, "gateway-fresh")
	require.Eventually(t, func() bool { return f.metric(fresh, "corral_node_lost", "n4") == 1 }, 20*time.Second, 10*time.Millisecond,
		"a gateway started after n4's loss does not show it lost")
	assert.Equal(t, 1, f.series(fresh, "corral_node_up", "n4"))
	assert.Zero(t, f.metric(fresh, "corral_node_up", "n4"))
	assert.Equal(t, 1, f.series(fresh, "corral_node_losses_total", "n4"), "its losses shown, from 0")
	assert.Zero(t, f.losses(fresh, "n4"), "this gateway declared no loss")
	assert.Zero(t, f.metric(fresh, "corral_node_lost", "n5"), "a node alive is not lost")
	assert.Equal(t, 1.0, f.metric(fresh, "corral_node_up", "n5"))
	assert.NotEmpty(t, f.logs.lines("node lost before this gateway started", "node=n4"))

	// corral devices forget: the node's entries removed, then the forgotten event.
	js, err := jetstream.New(old.nc)
	require.NoError(t, err)
	reg, err := js.KeyValue(t.Context(), broker.RegistryBucket)
	require.NoError(t, err)
	require.NoError(t, reg.Delete(t.Context(), broker.RegistryKey("n4", "n4-p1")))
	require.NoError(t, broker.RecordNodeForgotten(t.Context(), js, "n4", "test"))
	require.Eventually(t, func() bool { return f.series(fresh, "corral_node_lost", "n4") == 0 }, 20*time.Second, 10*time.Millisecond,
		"forgotten, n4 is still shown lost")

	later := startFreshGateway(t, f, "gateway-later")
	require.Eventually(t, func() bool { return f.metric(later, "corral_node_up", "n5") == 1 }, 20*time.Second, 10*time.Millisecond)
	require.NoError(t, later.client.WaitReady(t.Context()))
	// Past the time it gives a node to beat before it shows the registry's losses.
	deadline := time.Now().Add(broker.LostAfter + time.Second)
	for time.Now().Before(deadline) {
		require.Zero(t, f.series(later, "corral_node_lost", "n4"), "a gateway started after the node was forgotten shows it")
		time.Sleep(50 * time.Millisecond)
	}
}
