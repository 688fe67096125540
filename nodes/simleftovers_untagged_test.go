package nodes_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// The --sim-android devices of an older Corral's data dir go once their node restarts, though
// they carry no tag sim (they had none before 14becdd): whether written under the serial alone
// (a Corral before node-scoped keys, 7824360) or under the node's key, online or shown offline
// since, they are of the brand corral every simulated Android device reports, under
// 127.0.0.1:<port> serials no start uses again. A real phone's entry under the node's key stays,
// offline; one under the serial alone goes with the other leftovers of an older Corral (the node
// may not read such entries: broker/auth.go). Before, the node took them for real devices and
// showed them offline for good.
func TestRestartedNodeForgetsAnOlderCorralsUntaggedSimulatedDevices(t *testing.T) {
	const node, gone, shown, unplugged = "n1", "127.0.0.1:40002", "127.0.0.1:40003", "R58M41ABCDE"
	for _, c := range []struct {
		name string
		key  func(serial string) string
		kept bool // the real phone's entry stays, offline
	}{
		{"under the serial alone", broker.Token, false},
		{"under the node's key", func(serial string) string { return broker.RegistryKey(node, serial) }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRestartRig(t, true) // a gateway that reaps, as corral up's does
			put := func(e broker.DeviceEntry) {
				t.Helper()
				e.V, e.Platform, e.Node, e.Release, e.SDK, e.Updated = broker.WireVersion, "android", node, "14", "34", time.Now()
				b, err := json.Marshal(e)
				require.NoError(t, err)
				_, err = r.stores.Registry.Put(r.ctx, c.key(e.Serial), b)
				require.NoError(t, err)
			}
			put(broker.DeviceEntry{Serial: gone, Model: "Corral SimAndroid", Brand: "corral", State: broker.StateOnline})
			put(broker.DeviceEntry{Serial: shown, Model: "Corral SimAndroid", Brand: "corral", State: broker.StateOffline,
				Reason: "node n1 restarted; device not attached yet"})
			put(broker.DeviceEntry{Serial: unplugged, Model: "SM-G991B", Brand: "samsung", State: broker.StateOnline})

			n := r.startNode(node, "sim-n1-01")
			r.waitEntry(node, "sim-n1-01", "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
			n.Stop() // every entry the node writes is written by now: what is gone stays gone
			for _, serial := range []string{gone, shown} {
				for _, key := range []string{broker.Token(serial), broker.RegistryKey(node, serial)} {
					farmtest.Eventually(t, 15*time.Second, func() bool {
						_, err := r.stores.Registry.Get(r.ctx, key)
						return errors.Is(err, jetstream.ErrKeyNotFound)
					}, "%s: an older Corral's simulated device is still in the registry", key)
				}
				farmtest.Eventually(t, 15*time.Second, func() bool { _, listed := r.gw.Device(serial); return !listed },
					"%s: still in the gateway's view", serial)
			}
			if !c.kept {
				farmtest.Eventually(t, 15*time.Second, func() bool {
					_, err := r.stores.Registry.Get(r.ctx, broker.Token(unplugged))
					return errors.Is(err, jetstream.ErrKeyNotFound)
				}, "%s: an older Corral's entry of a real phone is still in the registry", unplugged)
				return
			}
			r.waitEntry(node, unplugged, "kept offline", func(d broker.DeviceEntry) bool { return d.State == broker.StateOffline })
		})
	}
}
