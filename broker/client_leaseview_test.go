package broker_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// registryEntry reads serial's entry from the registry itself, not a gateway's cache.
func registryEntry(t *testing.T, s *broker.Stores, node, serial string) (broker.DeviceEntry, bool) {
	var d broker.DeviceEntry
	e, err := s.Registry.Get(t.Context(), broker.RegistryKey(node, serial))
	return d, err == nil && json.Unmarshal(e.Value(), &d) == nil
}

// openStores opens the farm's stores on a connection of the test's own.
func openStores(t *testing.T, f *farmtest.Farm) *broker.Stores {
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	s, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	return s
}

// Right after acquire_device or select_device answers, the caller's next read through the
// same gateway (list_available_devices free_only, get_device_status) sees its lease: the node
// writes the registry entry a moment after it answers, and the gateway shows what the answer
// said until the registry catches up.
func TestGatewayShowsALeaseAsSoonAsGranted(t *testing.T) {
	for _, tool := range []string{"acquire_device", "select_device"} {
		t.Run(tool, func(t *testing.T) {
			f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
			serial := f.Devices()[0].Serial
			c := f.Client("agent")
			farmtest.MustCall(t, c, "list_available_devices", map[string]any{"free_only": true}) // the catalog, listed before the clock runs
			farmtest.MustCall(t, c, tool, map[string]any{"serial": serial})

			var free mcp.DeviceListResult
			farmtest.Structured(t, farmtest.MustCall(t, c, "list_available_devices", map[string]any{"free_only": true}), &free)
			assert.Empty(t, free.Devices, "list_available_devices free_only right after %s", tool)
			var st mcp.DeviceStatusResult
			farmtest.Structured(t, farmtest.MustCall(t, c, "get_device_status", map[string]any{"serial": serial}), &st)
			assert.Equal(t, broker.StateLeased, st.State, "get_device_status right after %s", tool)
			assert.Contains(t, st.Holder, "agent", "get_device_status right after %s", tool)
		})
	}
}

// Through the gateway's client: a grant shows at once, and so does its release; a grant's
// registry entry that comes after the release does not bring the lease back.
func TestGatewayShowsGrantAndReleaseAtOnce(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gw := f.Gateway().Client
	s := openStores(t, f)
	serial := f.Devices()[0].Serial
	alice := broker.Holder{Principal: "alice", Client: "qa"}
	ans, err := gw.Acquire(t.Context(), broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: alice})
	require.NoError(t, err)
	require.True(t, ans.OK, ans.Error)
	d, ok := gw.Device(serial)
	require.True(t, ok)
	assert.Equal(t, broker.StateLeased, d.State)
	assert.Equal(t, alice.String(), d.Holder)
	assert.Equal(t, ans.Lease.Epoch, d.Epoch)
	assert.Equal(t, broker.StateLeased, gw.Devices()[0].State, "Devices right after the grant")

	rel, err := gw.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Handle: ans.Lease.Handle})
	require.NoError(t, err)
	require.True(t, rel.OK, rel.Error)
	// Until the registry has the release, whatever it brought meanwhile, the device shows free.
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := gw.Device(serial)
		require.Equal(t, broker.StateOnline, d.State, "the device after its release")
		require.Empty(t, d.Holder, "the device after its release")
		r, ok := registryEntry(t, s, d.Node, serial)
		return ok && r.Epoch == ans.Lease.Epoch && r.Holder == ""
	}, "the release in the registry")
}

// What the registry says later wins over what a grant answer said: a lease given back
// through another gateway shows free on this one as soon as the registry has it, not when
// the grant's view would lapse.
func TestGatewayViewYieldsToTheRegistry(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gw := f.Gateway().Client
	s := openStores(t, f)
	other, err := broker.NewClient(t.Context(), s.JS.Conn(), s, broker.ClientOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	require.NoError(t, other.WaitReady(ctx))
	serial := f.Devices()[0].Serial
	ans, err := gw.Acquire(t.Context(), broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: broker.Holder{Principal: "alice"}})
	require.NoError(t, err)
	require.True(t, ans.OK, ans.Error)
	rel, err := other.Release(t.Context(), broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Handle: ans.Lease.Handle})
	require.NoError(t, err)
	require.True(t, rel.OK, rel.Error)

	farmtest.Eventually(t, 10*time.Second, func() bool {
		r, ok := registryEntry(t, s, ans.Lease.Node, serial)
		return ok && r.Epoch == ans.Lease.Epoch && r.Holder == ""
	}, "the release in the registry")
	farmtest.Eventually(t, 2*time.Second, func() bool {
		d, _ := gw.Device(serial)
		return d.State == broker.StateOnline && d.Holder == ""
	}, "the gateway shows the device free once the registry does")
}
