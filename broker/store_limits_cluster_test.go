package broker

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// startCluster starts n routed nats-servers with JetStream and returns their client URLs,
// once the cluster's JetStream answers.
func startCluster(t *testing.T, n int) []string {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	routes, ports := make([]string, n), make([]int, n)
	for i := range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ports[i] = l.Addr().(*net.TCPAddr).Port
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", ports[i])
		require.NoError(t, l.Close())
	}
	var urls []string
	for i := range n {
		ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: fmt.Sprintf("nats-%d", i+1),
			Cluster: &embedded.ClusterOptions{Name: "corral-test", Port: ports[i], Routes: routes}}, log)
		require.NoError(t, err)
		t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
		urls = append(urls, ns.ClientURL())
	}
	nc, err := nats.Connect(strings.Join(urls, ","))
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err := js.AccountInfo(ctx)
		return err == nil
	}, 30*time.Second, 100*time.Millisecond, "JetStream of the cluster ready")
	return urls
}

// replicatedStores are Corral's stores made with 3 replicas on a 3-server cluster, and a
// connection to it; ctx ends a minute after.
func replicatedStores(t *testing.T) (context.Context, *nats.Conn, jetstream.JetStream, *Stores) {
	t.Helper()
	nc, err := nats.Connect(strings.Join(startCluster(t, 3), ","))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	s, err := EnsureStores(ctx, nc, StoreOptions{Replicas: 3})
	require.NoError(t, err)
	return ctx, nc, js, s
}

// On a 3-server cluster, R3 stores an older Corral left unbounded are bounded once a gateway's
// start has updated them: they keep 3 replicas and their entries, and refuse an oversize value.
func TestReplicatedStoresAreBoundedOnceUpdated(t *testing.T) {
	ctx, nc, js, s := replicatedStores(t)
	unbound(t, js, kvStream(RegistryBucket), kvStream(LeaseBucket), kvStream(NodeBucket), kvStream(CalibrationBucket), objStream(ScreenshotBucket))
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "nB", State: StateOnline})

	s, err := EnsureStores(ctx, nc, StoreOptions{}) // a gateway's start
	require.NoError(t, err)
	assertBounded(t, js)
	_, err = s.Registry.Put(ctx, RegistryKey("nA", "big"), make([]byte, 64<<10+1))
	assert.ErrorContains(t, err, RegistryBucket+" takes values of at most 64KiB")
	st, err := js.Stream(ctx, kvStream(RegistryBucket))
	require.NoError(t, err)
	assert.Equal(t, 3, st.CachedInfo().Config.Replicas, "the update kept the replicas")
	_, err = s.Registry.Get(ctx, RegistryKey("nB", "d1"))
	assert.NoError(t, err, "nB's entry")
}
