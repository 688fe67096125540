package broker_test

import (
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A gateway whose link to NATS drops and comes back (the server up throughout) has, within a
// couple of seconds of reconnecting, what the registry became meanwhile: the changes its
// watch's consumer sent into the cut link, and the entries deleted meanwhile, their deletion
// markers purged too.
func TestClientRegistryAfterLinkCut(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	link := farmtest.StartLink(t, ns.Addr().String())
	nc, err := broker.Connect(broker.ConnectOptions{URL: "nats://" + link.Addr(), Name: "gateway"}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	gwStores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	gw, err := broker.NewClient(t.Context(), nc, gwStores, broker.ClientOptions{Log: log})
	require.NoError(t, err)
	direct, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(direct.Close)
	s, err := broker.EnsureStores(t.Context(), direct, broker.StoreOptions{})
	require.NoError(t, err)
	put := func(serial, state string) {
		b, err := json.Marshal(broker.DeviceEntry{V: broker.WireVersion, Serial: serial, Platform: "android", Node: "n1", State: state, Updated: time.Now()})
		require.NoError(t, err)
		_, err = s.Registry.Put(t.Context(), broker.RegistryKey("n1", serial), b)
		require.NoError(t, err)
	}
	put("s1", broker.StateOnline)
	put("s2", broker.StateOnline)
	farmtest.Eventually(t, 15*time.Second, func() bool { return len(gw.Devices()) == 2 }, "both devices in the gateway's cache")

	link.Cut()
	farmtest.Eventually(t, 15*time.Second, func() bool { return !nc.IsConnected() }, "the gateway cut off")
	put("s1", broker.StateLeased)
	require.NoError(t, s.Registry.Delete(t.Context(), broker.RegistryKey("n1", "s2")))
	require.NoError(t, s.Registry.PurgeDeletes(t.Context(), jetstream.DeleteMarkersOlderThan(-1)))
	link.Heal()
	farmtest.Eventually(t, 15*time.Second, nc.IsConnected, "the gateway reconnected")
	back := time.Now()
	farmtest.Eventually(t, 3*time.Second, func() bool {
		d, ok := gw.Device("s1")
		_, gone := gw.Device("s2")
		return ok && d.State == broker.StateLeased && !gone
	}, "s1 leased and s2 gone from the gateway's cache")
	t.Logf("caught up %v after the reconnection", time.Since(back))
}
