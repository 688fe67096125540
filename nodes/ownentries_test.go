package nodes

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A node restarting takes as its own the entries under its keys (<node>.<serial>) that name it;
// not an entry another node wrote naming it, nor one under its keys naming another node: such
// an entry would set its epochs and make it record an interrupted task it never ran. Nor an
// older Corral's entries under the serial alone: its NATS user may not watch them (no filter
// scopes them to a node).
func TestOwnEntriesAreThoseUnderItsKeys(t *testing.T) {
	ctx, stores, log := mirrorStores(t)
	put := func(key, serial, node string, epoch uint64) {
		b, err := json.Marshal(broker.DeviceEntry{V: broker.WireVersion, Serial: serial, Node: node, State: broker.StateOnline, Epoch: epoch})
		require.NoError(t, err)
		_, err = stores.Registry.Put(ctx, key, b)
		require.NoError(t, err)
	}
	put(broker.RegistryKey("n1", "own"), "own", "n1", 5)
	put("own", "own", "n1", 1) // an older Corral's, after the node's own
	put("old", "old", "n1", 3)
	put(broker.RegistryKey("n2", "planted"), "planted", "n1", 9)
	put(broker.RegistryKey("n1", "other"), "other", "n2", 9)
	put("other2", "other2", "n2", 9)

	got, err := ownEntries(ctx, stores, "n1")
	require.NoError(t, err)
	epochs := map[string]uint64{}
	for s, e := range got {
		epochs[s] = e.Epoch
	}
	assert.Equal(t, map[string]uint64{"own": 5}, epochs)

	m := newNATSMirror(stores, "n1", log)
	m.Device(broker.DeviceEntry{V: broker.WireVersion, Serial: "10.0.0.7:5555", Node: "n1", State: broker.StateOnline})
	m.Lease("10.0.0.7:5555", &broker.Lease{V: broker.WireVersion, Serial: "10.0.0.7:5555", Node: "n1", Handle: "secret"})
	m.flush(ctx, true)
	_, err = stores.Registry.Get(ctx, "n1.10=2E0=2E0=2E7=3A5555")
	assert.NoError(t, err, "the registry entry under the node's key")
	e, err := stores.Leases.Get(ctx, "n1.10=2E0=2E0=2E7=3A5555")
	require.NoError(t, err, "the lease under the node's key")
	assert.NotContains(t, string(e.Value()), "secret")
}
