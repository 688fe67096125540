package broker

import (
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A group whose members' leases all ended (each node writes its device's entry without holder
// at the lease's epoch, as at an idle expiry) is gone from the bucket and from every gateway's
// memory soon after, not at its members' maximum; one member still held keeps it. Two gateways
// sweep the same group: one ends it, the other's write is refused, and both forget it.
func TestLeaseGroupGoesWhenItsMembersEnded(t *testing.T) {
	s := openStores(t)
	now := time.Now()
	leases := []Lease{
		{Handle: NewLeaseHandle(), Serial: "a", Node: "n1", Epoch: 3, ExpiresAt: now.Add(time.Second), MaxUntil: now.Add(4 * time.Hour)},
		{Handle: NewLeaseHandle(), Serial: "b", Node: "n2", Epoch: 7, ExpiresAt: now.Add(time.Second), MaxUntil: now.Add(4 * time.Hour)},
	}
	held := func(l Lease, holder string) {
		putDevice(t, s, DeviceEntry{Serial: l.Serial, Node: l.Node, State: StateLeased, Epoch: l.Epoch, Holder: holder})
	}
	ended := func(l Lease) {
		putDevice(t, s, DeviceEntry{Serial: l.Serial, Node: l.Node, State: StateOnline, Epoch: l.Epoch})
	}
	// The registry a moment behind the grant: the devices' epochs before it, free.
	for _, l := range leases {
		putDevice(t, s, DeviceEntry{Serial: l.Serial, Node: l.Node, State: StateOnline, Epoch: l.Epoch - 1})
	}
	var gws []*Client
	for range 2 {
		c := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour, GroupSweepEvery: 20 * time.Millisecond, GroupEndedKeep: time.Second})
		gws = append(gws, c)
	}
	handle := NewGroupHandle()
	g, err := NewLeaseGroup(handle, Holder{Principal: "alice"}, leases, now)
	require.NoError(t, err)
	require.NoError(t, gws[0].CreateLeaseGroup(call(t), handle, g))
	_, err = gws[1].LeaseGroup(call(t), handle) // opens the bucket, and the sweep, there too
	require.NoError(t, err)
	kept := func(c *Client) bool {
		c.groups.mu.RLock()
		defer c.groups.mu.RUnlock()
		_, ok := c.groups.byKey[groupKey(handle)]
		return ok
	}
	inBucket := func() (LeaseGroup, bool) {
		kv, err := s.JS.KeyValue(call(t), LeaseGroupBucket)
		require.NoError(t, err)
		got, err := kv.Get(call(t), groupKey(handle))
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return LeaseGroup{}, false
		}
		require.NoError(t, err)
		grp, err := decodeLeaseGroup(groupKey(handle), got.Value())
		require.NoError(t, err)
		return grp, true
	}

	// Held, then one member ended: the group stays, not ended, however many sweeps pass.
	held(leases[0], "alice")
	held(leases[1], "alice")
	ended(leases[0])
	for _, c := range gws {
		require.Eventually(t, func() bool {
			d, _ := c.Device("a")
			return d.Holder == ""
		}, waitLong, 10*time.Millisecond, "the gateway sees a's lease end")
	}
	for range 3 { // a few sweeps on each gateway, each seeing a ended and b held
		for _, c := range gws {
			c.endGroups(call(t))
		}
	}
	grp, ok := inBucket()
	require.True(t, ok, "the group of a member still held went")
	assert.True(t, grp.Ended.IsZero(), "a group with a member held was ended")
	listed, err := gws[0].LeaseGroups(call(t))
	require.NoError(t, err)
	assert.Len(t, listed, 1)

	// The last member ends: the group is gone from the bucket and both gateways' memories.
	ended(leases[1])
	require.Eventually(t, func() bool {
		_, ok := inBucket()
		return !ok && !kept(gws[0]) && !kept(gws[1])
	}, waitLong, 20*time.Millisecond, "the group whose members all ended is still kept")
	_, err = gws[1].LeaseGroup(call(t), handle)
	assert.ErrorIs(t, err, ErrNotFound)
}

// A group just ended is still answered for its grace (its handle tells how each member ended),
// and lists no longer: its members hold nothing.
func TestEndedLeaseGroupKeptForItsGrace(t *testing.T) {
	s := openStores(t)
	now := time.Now()
	l := Lease{Handle: NewLeaseHandle(), Serial: "a", Node: "n1", Epoch: 3, ExpiresAt: now.Add(time.Second), MaxUntil: now.Add(time.Hour)}
	putDevice(t, s, DeviceEntry{Serial: "a", Node: "n1", State: StateLeased, Epoch: 3, Holder: "alice"})
	c := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour, GroupSweepEvery: 20 * time.Millisecond}) // endedKeep stays groupKeep, a minute
	handle := NewGroupHandle()
	g, err := NewLeaseGroup(handle, Holder{Principal: "alice"}, []Lease{l}, now)
	require.NoError(t, err)
	require.NoError(t, c.CreateLeaseGroup(call(t), handle, g))

	putDevice(t, s, DeviceEntry{Serial: "a", Node: "n1", State: StateLeased, Epoch: 4, Holder: "bob"}) // leased again since
	require.Eventually(t, func() bool {
		got, err := c.LeaseGroup(call(t), handle)
		return err == nil && !got.Ended.IsZero()
	}, waitLong, 20*time.Millisecond, "the group was not ended")
	listed, err := c.LeaseGroups(call(t))
	require.NoError(t, err)
	assert.Empty(t, listed, "an ended group is listed")
}
