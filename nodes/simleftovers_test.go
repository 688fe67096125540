package nodes_test

import (
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// realPhone is a simulated phone that passes for a real one: it has no tag sim, and a real
// phone's brand.
type realPhone struct{ *sim.Phone }

func (p realPhone) Info() device.Info {
	info := p.Phone.Info()
	info.Tags, info.Brand = nil, "samsung"
	return info
}

// startNodeWithDrivers starts node id, on a NATS connection of its own, with drivers.
func (r *restartRig) startNodeWithDrivers(id string, drivers ...device.Driver) *nodes.Node {
	r.t.Helper()
	return r.startTaggedNode(id, nil, drivers...)
}

// A restarted node removes from the registry its simulated devices (tag sim) that it no longer
// has, and their leases: a simulated device of the last run, often under a serial of its own, is
// gone for good, and an offline entry of it would be a ghost in the farm's lists forever. A
// real device's entry stays, offline until it is attached again: it tells users the phone is
// unplugged. A simulated device that comes back under its serial continues its epoch.
func TestRestartedNodeForgetsItsSimulatedDevicesNotItsRealOnes(t *testing.T) {
	for _, c := range []struct {
		name string
		stop func(*nodes.Node)
	}{
		{"crash", (*nodes.Node).Kill},
		{"clean stop", (*nodes.Node).Stop},
	} {
		t.Run(c.name, func(t *testing.T) {
			const node, gone, back, unplugged = "n1", "127.0.0.1:40001", "sim-n1-01", "R58M41ABCDE"
			r := newRestartRig(t, false)
			phones := []*sim.Phone{sim.New(gone), sim.New(back), sim.New(unplugged)}
			for _, p := range phones {
				t.Cleanup(func() { _ = p.Close() })
			}
			first := r.startNodeWithDrivers(node, phones[0], phones[1], realPhone{phones[2]})
			held := map[string]*broker.Lease{}
			for _, serial := range []string{gone, back, unplugged} {
				r.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
				held[serial] = r.acquire(serial, "alice")
				r.waitEntry(node, serial, "leased", func(d broker.DeviceEntry) bool { return d.State == broker.StateLeased })
			}
			c.stop(first)

			r.startNodeWithDrivers(node, sim.New(back))
			_, err := r.stores.Registry.Get(r.ctx, broker.RegistryKey(node, gone))
			assert.True(t, errors.Is(err, jetstream.ErrKeyNotFound), "the simulated device the node no longer has is still in the registry: %v", err)
			farmtest.Eventually(t, 15*time.Second, func() bool { _, listed := r.gw.Device(gone); return !listed },
				"%s: still in the gateway's view", gone)
			waitNoLease(t, r, node, gone)

			d := r.waitEntry(node, back, "back online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
			assert.GreaterOrEqual(t, d.Epoch, held[back].Epoch, "the simulated device that came back started its epochs over")
			// (Offline as the node shut down, or, after a crash, as it restarted.)
			r.waitEntry(node, unplugged, "kept offline", func(d broker.DeviceEntry) bool { return d.State == broker.StateOffline })
		})
	}
}

// waitNoLease waits until serial's lease entry under node is gone from the store.
func waitNoLease(t *testing.T, r *restartRig, node, serial string) {
	t.Helper()
	farmtest.Eventually(t, 15*time.Second, func() bool {
		_, err := r.stores.Leases.Get(r.ctx, broker.LeaseKey(node, serial))
		return errors.Is(err, jetstream.ErrKeyNotFound)
	}, "%s: the lease of a simulated device the node no longer has is still in the store", serial)
}
