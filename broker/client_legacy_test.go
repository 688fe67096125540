package broker

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// putLegacy writes e as a Corral from before node-scoped keys did (7824360's nodes/mirror.go):
// the entry under Token(serial), in the same JSON, and its lease, if held, under the same key.
func putLegacy(t *testing.T, s *Stores, e DeviceEntry) {
	t.Helper()
	e.V, e.Platform, e.Updated = WireVersion, "android", time.Now()
	b, err := json.Marshal(e)
	require.NoError(t, err)
	_, err = s.Registry.Put(t.Context(), Token(e.Serial), b)
	require.NoError(t, err)
	if e.Holder != "" {
		l, err := json.Marshal(Lease{V: WireVersion, Handle: "h-" + e.Serial, Serial: e.Serial, Node: e.Node,
			Holder: Holder{Principal: "ci", Client: "corral-cli"}, Epoch: e.Epoch, AcquiredAt: e.Updated})
		require.NoError(t, err)
		_, err = s.Leases.Put(t.Context(), Token(e.Serial), l)
		require.NoError(t, err)
	}
}

// An entry an older Corral wrote under the serial alone gives way once its node writes
// node-scoped keys (the node was upgraded): every client hides it, whatever it says (online
// for a simulated device that is gone, leased to a holder long gone), and a reaping gateway
// deletes it, and its lease, once, saying so in one INFO line among all gateways. The entries of
// a node not upgraded yet stay in use. Before, the old entry, seen first, was the one shown.
func TestOlderCorralsEntriesGiveWayToTheirUpgradedNode(t *testing.T) {
	const gone, kept, other = "127.0.0.1:40001", "sim-n1-01", "R58M41ABCDE"
	s := openStores(t)
	cli := startClient(t, s, ClientOptions{LostAfter: time.Hour}) // corral devices: reaps nothing
	putLegacy(t, s, DeviceEntry{Serial: gone, Node: "n1", State: StateOnline, Tags: []string{"sim"}})
	putLegacy(t, s, DeviceEntry{Serial: kept, Node: "n1", State: StateLeased, Holder: "ci (corral-cli)", Epoch: 3})
	putLegacy(t, s, DeviceEntry{Serial: other, Node: "n2", State: StateOnline})
	require.Eventually(t, func() bool { return len(cli.Devices()) == 3 }, waitLong, 5*time.Millisecond,
		"the older Corral's entries are in use while their nodes are not upgraded")

	putDevice(t, s, DeviceEntry{Serial: kept, Node: "n1", State: StateOnline, Epoch: 3})
	require.Eventually(t, func() bool {
		d, ok := cli.Device(kept)
		return ok && d.State == StateOnline
	}, waitLong, 5*time.Millisecond, "%s: the upgraded node's entry is not the one shown", kept)
	shown := func(c *Client) map[string]string {
		out := map[string]string{}
		for _, d := range c.Devices() {
			out[d.Serial] = d.Node + " " + d.State + " " + d.Holder
		}
		return out
	}
	want := map[string]string{kept: "n1 online ", other: "n2 online "}
	assert.Equal(t, want, shown(cli), "the devices listed")
	_, listed := cli.Device(gone)
	assert.False(t, listed, "%s, a device of the upgraded node's older run, is still found", gone)
	_, err := s.Registry.Get(t.Context(), Token(gone))
	require.NoError(t, err, "a client that does not reap deleted an entry")

	// Two gateways: one deletes each leftover and says so.
	var logs logtest.Recorder
	log := slog.New(&logs)
	gws := []*Client{startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour, Log: log}),
		startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour, Log: log})}
	for _, serial := range []string{gone, kept} {
		require.Eventually(t, func() bool {
			_, err := s.Registry.Get(t.Context(), Token(serial))
			_, lerr := s.Leases.Get(t.Context(), Token(serial))
			return errors.Is(err, jetstream.ErrKeyNotFound) && errors.Is(lerr, jetstream.ErrKeyNotFound)
		}, waitLong, 5*time.Millisecond, "%s: the older Corral's entry or lease is still in the store", serial)
	}
	_, err = s.Registry.Get(t.Context(), Token(other))
	require.NoError(t, err, "the entry of a node not upgraded was deleted")
	for _, c := range append(gws, cli) {
		require.Eventually(t, func() bool { return len(c.Devices()) == 2 }, waitLong, 5*time.Millisecond, "the leftovers' deletion reached the clients")
		assert.Equal(t, want, shown(c), "the devices listed after the leftovers' deletion")
	}
	removed := map[string]int{}
	for _, r := range logs.Records() {
		if strings.HasPrefix(r.Message, "registry entry of an older Corral removed") {
			assert.Equal(t, slog.LevelInfo, r.Level)
			r.Attrs(func(a slog.Attr) bool {
				if a.Key == "serial" {
					removed[a.Value.String()]++
				}
				return true
			})
		}
	}
	assert.Equal(t, map[string]int{gone: 1, kept: 1}, removed, "the INFO lines of the leftovers removed, among both gateways")
}

// Of two entries of one serial, neither offline, the one under a node-scoped key is used
// rather than the older Corral's under the serial alone, though that one was seen first: a phone
// moved to an upgraded node from one not upgraded yet.
func TestNodeScopedEntryWinsOverAnOlderCorrals(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour})
	putLegacy(t, s, DeviceEntry{Serial: "s1", Node: "old", State: StateLeased, Holder: "ci (corral-cli)"})
	require.Eventually(t, func() bool { _, ok := c.Device("s1"); return ok }, waitLong, 5*time.Millisecond, "s1 listed")
	putDevice(t, s, DeviceEntry{Serial: "s1", Node: "new", State: StateOnline})
	require.Eventually(t, func() bool { d, _ := c.Device("s1"); return d.Node == "new" }, waitLong, 5*time.Millisecond,
		"the older Corral's entry, seen first, is still the one used")
	devs := c.Devices()
	require.Len(t, devs, 1)
	assert.Equal(t, "new", devs[0].Node)
	assert.Empty(t, devs[0].Holder)
}
