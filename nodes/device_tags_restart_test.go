package nodes_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// startTaggedNode starts node id with these --device-tags and drivers, on a NATS connection of
// its own.
func (r *restartRig) startTaggedNode(id string, tags []string, drivers ...device.Driver) *nodes.Node {
	r.t.Helper()
	nc, err := broker.Connect(broker.ConnectOptions{URL: r.url, Name: "node-" + id}, r.log)
	require.NoError(r.t, err)
	stores, err := broker.EnsureStores(r.ctx, nc, broker.StoreOptions{})
	require.NoError(r.t, err)
	n, err := nodes.Start(r.ctx, nodes.Config{ID: id, NC: nc, Stores: stores, Metrics: r.metrics, Log: r.log, DeviceTags: tags})
	require.NoError(r.t, err)
	r.t.Cleanup(n.Stop)
	for _, d := range drivers {
		n.AddDriver(d)
	}
	return n
}

// A node restarted with other --device-tags shows the devices of its last run that are not
// attached yet with its new tags: with the old ones, a policy would go on listing (and
// giving) the unplugged phone to the pool the node left, and hide it from the pool it is in,
// until it came back. A device that was offline already (the node stopped cleanly) is written
// again for it; a node restarted without tags leaves none of its old ones on it.
func TestRestartedNodeGivesItsOfflineDevicesItsNewTags(t *testing.T) {
	for _, c := range []struct {
		name string
		stop func(*nodes.Node)
	}{
		{"clean stop", (*nodes.Node).Stop},
		{"crash", (*nodes.Node).Kill},
	} {
		t.Run(c.name, func(t *testing.T) {
			const node, unplugged = "n1", "R58M41ABCDE"
			r := newRestartRig(t, false)
			phone := sim.New(unplugged)
			t.Cleanup(func() { _ = phone.Close() })
			first := r.startTaggedNode(node, []string{"pool-a", "lab-2"}, realPhone{phone})
			r.waitEntry(node, unplugged, "online in pool-a", func(d broker.DeviceEntry) bool {
				return d.State == broker.StateOnline && slices.Equal(d.Tags, []string{"pool-a", "lab-2"})
			})
			c.stop(first)
			if c.name == "clean stop" {
				r.waitEntry(node, unplugged, "offline as the node stopped", func(d broker.DeviceEntry) bool { return d.State == broker.StateOffline })
			}

			second := r.startTaggedNode(node, []string{"pool-b"})
			d := r.waitEntry(node, unplugged, "offline with the node's new tags", func(d broker.DeviceEntry) bool {
				return d.State == broker.StateOffline && slices.Equal(d.Tags, []string{"pool-b"})
			})
			assert.Contains(t, d.Reason, "not attached yet")
			farmtest.Eventually(t, 15*time.Second, func() bool {
				e, ok := r.gw.Device(unplugged)
				return ok && slices.Equal(e.Tags, []string{"pool-b"})
			}, "the gateway still shows %s with the tags of the node's last run", unplugged)

			second.Stop()
			r.startTaggedNode(node, nil)
			r.waitEntry(node, unplugged, "offline without tags", func(d broker.DeviceEntry) bool {
				return d.State == broker.StateOffline && len(d.Tags) == 0
			})
		})
	}
}
