package broker_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A farm upgraded in place from a Corral before node-scoped keys (7824360): the old run of node
// n2 left, under the serial alone, an online entry of a simulated device that is gone and a
// leased one of a device it still has, with its lease. Once n2 runs this Corral, the gateway
// (with its own NATS user's permissions) removes both; list_available_devices shows n2's
// devices as n2 now writes them, a state filter finds none leased, the gone device is
// unknown, and acquiring and force-releasing the kept one leaves it online. Before, the old
// entries were the ones shown, for good.
func TestUpgradedNodeLeavesNoOlderCorralsEntriesShown(t *testing.T) {
	const gone, kept = "127.0.0.1:40001", "n2-p1"
	f := farmtest.Start(t, farmtest.Options{Auth: true, Nodes: 1, PhonesPerNode: 1})
	nc, err := broker.Connect(f.Connect(broker.UserName(broker.RoleGateway, ""), "older-corral"), nil)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	s, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	// As 7824360's nodes/mirror.go wrote them (it had no NATS users: this one may write there).
	old := func(e broker.DeviceEntry) {
		e.V, e.Platform, e.Node, e.Updated = broker.WireVersion, "android", "n2", time.Now()
		b, err := json.Marshal(e)
		require.NoError(t, err)
		_, err = s.Registry.Put(t.Context(), broker.Token(e.Serial), b)
		require.NoError(t, err)
	}
	old(broker.DeviceEntry{Serial: gone, State: broker.StateOnline, Tags: []string{"sim"}})
	old(broker.DeviceEntry{Serial: kept, State: broker.StateLeased, Holder: "ci (corral-cli)", Epoch: 3})
	lease, err := json.Marshal(broker.Lease{V: broker.WireVersion, Handle: "old-handle", Serial: kept, Node: "n2",
		Holder: broker.Holder{Principal: "ci", Client: "corral-cli"}, Epoch: 3, AcquiredAt: time.Now()})
	require.NoError(t, err)
	_, err = s.Leases.Put(t.Context(), broker.Token(kept), lease)
	require.NoError(t, err)

	f.StartNode("n2", 2)
	for _, serial := range []string{gone, kept} {
		farmtest.Eventually(t, 15*time.Second, func() bool {
			_, err := s.Registry.Get(t.Context(), broker.Token(serial))
			return errors.Is(err, jetstream.ErrKeyNotFound)
		}, "%s: the older Corral's entry is still in the registry", serial)
	}
	farmtest.Eventually(t, 15*time.Second, func() bool {
		_, err := s.Leases.Get(t.Context(), broker.Token(kept))
		return errors.Is(err, jetstream.ErrKeyNotFound)
	}, "%s: the older Corral's lease is still in the store", kept)

	agent := f.Client("agent")
	list := func(args map[string]any) map[string]string {
		var page mcp.DeviceListResult
		farmtest.Structured(t, farmtest.MustCall(t, agent, "list_available_devices", args), &page)
		out := map[string]string{}
		for _, d := range page.Devices {
			out[d.Serial] = d.Node + " " + d.State + " " + d.Holder
		}
		return out
	}
	farmtest.Eventually(t, 15*time.Second, func() bool { return len(list(map[string]any{"state": "online"})) == 3 },
		"n2's devices online")
	want := map[string]string{"n1-p1": "n1 online ", kept: "n2 online ", "n2-p2": "n2 online "}
	assert.Equal(t, want, list(map[string]any{}), "the devices listed")
	assert.Empty(t, list(map[string]any{"state": "leased"}), "devices listed leased")
	_, found := f.Gateway().Client.Device(gone)
	assert.False(t, found, "%s, gone with n2's older run, is still a device", gone)
	leases, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	assert.Empty(t, leases)

	var acquired struct {
		Lease struct {
			Handle string `json:"handle"`
		} `json:"lease"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, agent, "acquire_device", map[string]any{"serial": kept}), &acquired)
	require.NotEmpty(t, acquired.Lease.Handle)
	ans, err := f.Gateway().Client.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: kept, Force: true, By: "operator"})
	require.NoError(t, err)
	require.True(t, ans.OK, "force release: %s", ans.Error)
	farmtest.Eventually(t, 15*time.Second, func() bool { return list(map[string]any{"state": "online"})[kept] == "n2 online " },
		"%s: online again after its force release", kept)
	assert.Empty(t, list(map[string]any{"state": "leased"}), "devices listed leased after the force release")
}
