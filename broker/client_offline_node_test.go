package broker

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fresh client (the CLI makes one per command) reaches a node whose every device is offline
// before it has heard the node beat: an emergency_stop of an offline rig must get to its node,
// which keeps the halt. It answered "node n1 is lost (no heartbeat for …)" at once, without
// asking, though the node was alive: only nodes with online devices were expected.
func TestFreshClientReachesANodeWithEveryDeviceOffline(t *testing.T) {
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	n1.stopBeats() // its beats so far went before the client listened: it has heard none
	putDevice(t, s, DeviceEntry{Serial: "rig-1", Node: "n1", State: StateOffline, Reason: "arm rig link lost"})
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour})

	ans, err := c.Abort(call(t), AbortRequest{V: WireVersion, Serial: "rig-1", All: true, Halt: true})
	require.NoError(t, err, "the emergency stop of an offline device did not reach its node")
	assert.Equal(t, []string{"n1:"}, ans.Aborted)
	select {
	case req := <-n1.aborts:
		assert.True(t, req.Halt, "the node got the abort without its halt")
	case <-time.After(waitLong):
		t.Fatal("the node did not get the abort")
	}
	assert.Empty(t, c.Nodes(), "a node not heard from listed alive")
}

// A node known from offline devices only, that never beats, is gone after lostAfter, and no
// loss is declared (nothing to reap: it may have been gone for long). One that beats is
// alive; an online device of its own makes its silence a loss, as before.
func TestLivenessOfflineOnlyNodeIsTentative(t *testing.T) {
	const after = time.Second
	var lost []string
	l := NewLiveness(after, func(node, _ string) { lost = append(lost, node) })
	before := time.Now()
	for _, n := range []string{"gone", "alive", "online"} {
		l.ExpectOffline(n)
	}
	expected := time.Now()
	l.Expect("online") // an online entry read after an offline one
	assert.Equal(t, []string{"online"}, l.Alive(), "offline-only nodes listed alive before a beat, or one with an online device not")
	require.False(t, isClosed(l.Lost("gone")), "a node of offline devices lost at once")

	l.Beat("alive", "boot-a", before)
	assert.Equal(t, []string{"alive", "online"}, l.Alive())
	assert.Empty(t, l.sweep(before.Add(after)), "gone before lostAfter")
	assert.ElementsMatch(t, [][2]string{{"online", ""}, {"alive", "boot-a"}}, l.sweep(expected.Add(after+time.Millisecond)),
		"the nodes heard from or with an online device not declared lost, or the silent offline-only one declared lost")
	assert.True(t, isClosed(l.Lost("gone")), "the silent offline-only node not gone after lostAfter")
	assert.Empty(t, l.Alive())

	// It beats at last: alive, and its silence is a loss from then on.
	back := expected.Add(2 * after)
	l.Beat("gone", "boot-g", back)
	assert.Equal(t, []string{"gone"}, l.Alive())
	l.ExpectOffline("gone") // its devices still offline: it stays a node heard from
	assert.Equal(t, [][2]string{{"gone", "boot-g"}}, l.sweep(back.Add(after+time.Millisecond)))
}

// A tracker younger than lostAfter has not heard every node yet: one it does not know is
// not lost yet but tracked, tentatively, until lostAfter from the tracker's start; then, and
// for an older tracker, an unknown node is lost at once.
func TestLivenessYoungTrackerWaitsForUnknownNodes(t *testing.T) {
	const after = time.Hour
	l := NewLiveness(after, func(node, _ string) { t.Errorf("%s declared lost", node) })
	ctx := l.Lost("n1")
	require.False(t, isClosed(ctx), "a young tracker took a node it had not heard yet for lost")
	assert.Empty(t, l.Alive(), "asking about a node listed it alive")
	assert.Empty(t, l.sweep(l.born.Add(after)), "lost before lostAfter")
	assert.Empty(t, l.sweep(l.born.Add(after+time.Millisecond)), "a node only asked about declared lost")
	assert.True(t, isClosed(ctx), "a node never heard not gone lostAfter after the tracker started")

	l = NewLiveness(after, nil)
	l.born = l.born.Add(-after)
	assert.True(t, isClosed(l.Lost("n2")), "an old tracker's unknown node not lost")
}

// A call to a node that stopped cleanly (its down event) says so and when, not that it was
// lost and its leases revoked; it is still ErrNodeLost to callers that stop waiting on one.
func TestCallToAStoppedNodeSaysItStopped(t *testing.T) {
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	c := startClient(t, s, ClientOptions{LostAfter: testLostAfter})
	require.Eventually(t, func() bool { return len(c.Nodes()) == 1 }, waitLong, 5*time.Millisecond, "n1 heard")

	inflight := make(chan error, 1)
	go func() {
		_, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: holdTool}, nil)
		inflight <- err
	}()
	select {
	case <-n1.held:
	case <-time.After(waitLong):
		t.Fatal("the held task did not reach n1")
	}
	n1.stopBeats()
	before := time.Now().UTC().Truncate(time.Second)
	require.NoError(t, n1.nc.Publish(fmt.Sprintf(EventNodeT, "n1", "down"), []byte(`{}`)))
	require.NoError(t, n1.nc.Flush())

	var err error
	select {
	case err = <-inflight:
	case <-time.After(waitLong):
		t.Fatal("the call in flight to a node that stopped did not end")
	}
	require.ErrorIs(t, err, ErrNodeLost)
	assert.ErrorContains(t, err, "node n1 stopped during the call (it said so at ")
	assert.NotContains(t, err.Error(), "no heartbeat")

	_, err = c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: "d1"})
	require.ErrorIs(t, err, ErrNodeLost)
	assert.ErrorContains(t, err, "node n1 stopped (it said so at ")
	assert.ErrorContains(t, err, "its devices are offline until it starts again")
	assert.NotContains(t, err.Error(), "lost")
	at, ok := c.live.stoppedAt("n1")
	require.True(t, ok)
	assert.False(t, at.Before(before), "stopped at %s, before the down event", at)
	assert.Contains(t, err.Error(), at.UTC().Format(time.RFC3339))
}
