package broker

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// RegistryVersion moves with what Devices shows, and only then: a put and a delete through the
// registry's watch, the entries a resync forgets, a lease shown ahead of the registry and that
// lease's end by time alone; an entry delivered again unchanged (a resync's) leaves it be.
func TestRegistryVersionMovesWithWhatDevicesShows(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{})
	version := c.RegistryVersion()
	movedWhen := func(cond func() bool, what string) {
		t.Helper()
		require.Eventually(t, func() bool { return cond() && c.RegistryVersion() != version }, waitLong, 5*time.Millisecond,
			"the registry version moved with %s", what)
		version = c.RegistryVersion()
	}
	still := func(what string) {
		t.Helper()
		require.Equal(t, version, c.RegistryVersion(), "the registry version moved with %s, which Devices does not show", what)
	}
	state := func(serial string) string { d, _ := c.Device(serial); return d.State }
	holder := func(serial string) string { d, _ := c.Device(serial); return d.Holder }

	putDevice(t, s, DeviceEntry{Serial: "s1", Node: "n1", State: StateOnline})
	movedWhen(func() bool { return state("s1") == StateOnline }, "s1 put")
	still("nothing")
	e, err := s.Registry.Get(t.Context(), RegistryKey("n1", "s1"))
	require.NoError(t, err)
	c.applyRegistry(e)
	still("s1's entry delivered again")
	c.forgetUnseen(map[string]bool{RegistryKey("n1", "s1"): true})
	still("a resync that saw every entry")

	putDevice(t, s, DeviceEntry{Serial: "s1", Node: "n1", State: StateLeased, Holder: "alice", Epoch: 1})
	movedWhen(func() bool { return holder("s1") == "alice" }, "s1 leased to alice")

	// Shown for its idle TTL at most: long enough to be seen on a loaded machine.
	now := time.Now()
	c.applyLease(&Lease{Serial: "s1", Node: "n1", Epoch: 2, AcquiredAt: now, ExpiresAt: now.Add(3 * time.Second)}, "bob")
	require.Equal(t, "bob", holder("s1"), "the lease granted to bob is shown ahead of the registry")
	require.NotEqual(t, version, c.RegistryVersion(), "the registry version stayed with bob's lease shown ahead of the registry")
	version = c.RegistryVersion()
	movedWhen(func() bool { return holder("s1") == "alice" }, "bob's lease no longer shown, the registry never having had it")

	putDevice(t, s, DeviceEntry{Serial: "s2", Node: "n1", State: StateOnline})
	movedWhen(func() bool { return state("s2") == StateOnline }, "s2 put")
	require.NoError(t, s.Registry.Delete(t.Context(), RegistryKey("n1", "s2")))
	movedWhen(func() bool { _, ok := c.Device("s2"); return !ok }, "s2 deleted")

	c.forgetUnseen(map[string]bool{})
	movedWhen(func() bool { return len(c.Devices()) == 0 }, "a resync that saw no entry")
}

// BenchmarkRegistryVersion is a look of the console's long poll at a registry of 10,000
// devices: what a still farm's open grid page costs 20 times a second instead of a grid.
func BenchmarkRegistryVersion(b *testing.B) {
	c := &Client{devices: map[string]cachedEntry{}, keysOf: map[string][]string{}}
	for i := range 10000 {
		node, serial := fmt.Sprintf("n%d", i%4+1), fmt.Sprintf("p%d", i)
		key := RegistryKey(node, serial)
		c.devices[key] = cachedEntry{DeviceEntry: DeviceEntry{Serial: serial, Node: node, State: StateOnline, Tags: []string{"sim"}},
			revision: uint64(i + 1), key: key, since: time.Now()}
	}
	for b.Loop() {
		c.RegistryVersion()
	}
}
