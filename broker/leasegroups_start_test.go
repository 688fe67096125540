package broker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A gateway started after an upgrade ends the groups left in the bucket whose members' leases
// all ended, though nothing opens the groups through it: it swept only once a group was next
// used through it, so an older Corral's groups stayed until their members' maximum. The bucket
// is made with the other stores (not first by whoever groups leases: streams_repair.go), so a
// reaping gateway's start opens it in the background.
func TestGatewayStartSweepsGroupsLeftInTheBucket(t *testing.T) {
	s := openStores(t)
	now := time.Now()
	l := Lease{Handle: NewLeaseHandle(), Serial: "a", Node: "n1", Epoch: 3, ExpiresAt: now.Add(time.Second), MaxUntil: now.Add(4 * time.Hour)}
	putDevice(t, s, DeviceEntry{Serial: "a", Node: "n1", State: StateOnline, Epoch: 3}) // its lease ended

	_, err := s.JS.KeyValue(call(t), LeaseGroupBucket)
	require.NoError(t, err, "the stores' opening makes the groups bucket")

	// A group an older gateway left, made through a client that does not reap (so does not sweep).
	old := startClient(t, s, ClientOptions{LostAfter: time.Hour})
	handle := NewGroupHandle()
	g, err := NewLeaseGroup(handle, Holder{Principal: "alice"}, []Lease{l}, now)
	require.NoError(t, err)
	require.NoError(t, old.CreateLeaseGroup(call(t), handle, g))

	// The gateway started after the upgrade: nothing asks it about groups.
	startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour})
	kv, err := s.JS.KeyValue(call(t), LeaseGroupBucket)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		e, err := kv.Get(call(t), groupKey(handle))
		if err != nil {
			return false
		}
		grp, err := decodeLeaseGroup(groupKey(handle), e.Value())
		return err == nil && !grp.Ended.IsZero()
	}, waitLong, 50*time.Millisecond, "the group whose members all ended was not ended by the gateway started after it")
}
