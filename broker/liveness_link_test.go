package broker

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeLink is a Liveness.link a test turns down and up; it counts the questions, which tell
// that Run has looked meanwhile.
type fakeLink struct {
	down       atomic.Bool
	reconnects atomic.Uint64
	asked      atomic.Int64
}

func (f *fakeLink) state() (bool, uint64) {
	f.asked.Add(1)
	return !f.down.Load(), f.reconnects.Load()
}

// waitAsked waits until Run has asked about the link n more times.
func (f *fakeLink) waitAsked(t *testing.T, n int64) {
	t.Helper()
	from := f.asked.Load()
	require.Eventually(t, func() bool { return f.asked.Load() >= from+n }, waitLong, time.Millisecond)
}

// While this process's own link is down no node is lost however long it lasts; once it is
// back every node gets lostAfter to beat, and one that does not is lost then, not before.
func TestLivenessLinkDownCountsNoSilence(t *testing.T) {
	const after = 200 * time.Millisecond
	lost := make(chan string, 4)
	l := NewLiveness(after, func(node, _ string) { lost <- node })
	link := &fakeLink{}
	l.link = link.state
	l.Beat("n1", "boot", time.Now())
	go l.Run(t.Context())
	link.waitAsked(t, 1)

	link.down.Store(true)
	cut := time.Now()
	// Silent well past lostAfter while cut off: Run looked again and again, and lost no one.
	link.waitAsked(t, 2)
	require.Eventually(t, func() bool { return time.Since(cut) > 3*after }, waitLong, 10*time.Millisecond)
	link.waitAsked(t, 2)
	assert.Empty(t, lost, "a node lost while this process was cut off")
	assert.Equal(t, []string{"n1"}, l.Alive())

	link.reconnects.Add(1)
	link.down.Store(false)
	back := time.Now()
	select {
	case node := <-lost:
		assert.Equal(t, "n1", node)
		assert.GreaterOrEqual(t, time.Since(back), after, "lost before lostAfter after the reconnection")
	case <-time.After(waitLong):
		t.Fatal("a node silent after the reconnection never declared lost")
	}
}

// A reconnection seen between two checks (the link up at both) restarts the clocks too.
func TestLivenessQuickReconnectRestartsClocks(t *testing.T) {
	const after = time.Hour
	l := NewLiveness(after, nil)
	link := &fakeLink{}
	l.link = link.state
	l.Beat("n1", "boot", t0)
	now := t0.Add(after - time.Second)
	require.True(t, l.linked(now))
	link.reconnects.Add(1)
	require.True(t, l.linked(now))
	assert.Empty(t, l.sweep(now.Add(after-time.Millisecond)), "lost before lostAfter after the reconnection")
	assert.Len(t, l.sweep(now.Add(after+time.Millisecond)), 1, "never lost after the reconnection")
	link.down.Store(true)
	assert.False(t, l.linked(now), "linked while the link is down")
}

// A node that said it stopped is gone at once and never declared lost; the beats of its boot
// sent as it stops do not bring it back, another boot's do, and so does its boot beating
// lostAfter after (a down event read late).
func TestLivenessStoppedNodeIsNotLost(t *testing.T) {
	const after = time.Second
	l := NewLiveness(after, nil)
	l.Beat("n1", "boot-a", t0)
	gone := l.Lost("n1")
	require.True(t, l.Stopped("n1", t0))
	assert.False(t, l.Stopped("n1", t0), "stopped twice")
	assert.True(t, isClosed(gone), "a call to a stopped node still waits")
	assert.True(t, l.nodes["n1"].stopped)
	assert.Empty(t, l.Alive())
	assert.Empty(t, l.sweep(t0.Add(10*after)), "a stopped node declared lost")

	l.Beat("n1", "boot-a", t0.Add(after/2))
	assert.Empty(t, l.Alive(), "a beat sent as it stopped brought the node back")
	l.Beat("n1", "boot-b", t0.Add(after/2))
	assert.Equal(t, []string{"n1"}, l.Alive(), "the restarted node not back")
	assert.False(t, l.nodes["n1"].stopped, "the restarted node still marked stopped")

	require.True(t, l.Stopped("n1", t0.Add(after)))
	l.Beat("n1", "boot-b", t0.Add(2*after+time.Millisecond))
	assert.Equal(t, []string{"n1"}, l.Alive(), "a node beating lostAfter after its down not back")
	assert.False(t, l.Stopped("unknown", t0), "an unknown node stopped")
}

// fakeProbe is a Liveness.probe a test makes unanswered and answered again; it counts the
// round trips asked for.
type fakeProbe struct {
	unanswered atomic.Bool
	asked      atomic.Int64
}

func (f *fakeProbe) roundTrip(time.Duration) error {
	f.asked.Add(1)
	if f.unanswered.Load() {
		return nats.ErrTimeout
	}
	return nil
}

// The server is asked for a round trip only once a node is silent for probeAfter, once a
// check whatever the number of nodes: a healthy farm costs nothing.
func TestLivenessAsksTheServerOnlyForASilence(t *testing.T) {
	l := NewLiveness(LostAfter, nil)
	probe := &fakeProbe{}
	l.probe = probe.roundTrip
	for _, n := range []string{"n1", "n2", "n3"} {
		l.Beat(n, "boot", t0)
	}
	require.True(t, l.linked(t0.Add(l.probeAfter())))
	assert.Zero(t, probe.asked.Load(), "asked the server while every node beats")
	require.True(t, l.linked(t0.Add(l.probeAfter()+time.Millisecond)))
	assert.EqualValues(t, 1, probe.asked.Load(), "round trips for one check of three silent nodes")
	assert.Less(t, l.probeAfter()+HeartbeatInterval+checkEvery+probeWait, LostAfter-300*time.Millisecond,
		"beats held by a stall the round trips do not see may come after lostAfter")
}

// A server that does not answer (a stopped process, a stalled link: the connection stays
// up) counts as a link down: no node is lost however long it lasts, and once it answers
// again every node gets lostAfter from then to beat; one that does not is lost then. The
// first check after the answer declares no one lost.
func TestLivenessUnansweredServerCountsNoSilence(t *testing.T) {
	const after = time.Second
	l := NewLiveness(after, nil)
	link, probe := &fakeLink{}, &fakeProbe{}
	l.link, l.probe = link.state, probe.roundTrip
	l.Beat("n1", "boot", t0)
	l.Beat("n2", "boot", t0)

	probe.unanswered.Store(true)
	for i := range 10 {
		now := t0.Add(l.probeAfter() + time.Millisecond + time.Duration(i)*after)
		require.False(t, l.linked(now), "linked while the server does not answer (check %d)", i)
	}
	assert.Equal(t, []string{"n1", "n2"}, l.Alive())

	probe.unanswered.Store(false)
	back := t0.Add(20 * after)
	require.True(t, l.linked(back), "not linked once the server answers")
	assert.Empty(t, l.sweep(back.Add(after-time.Millisecond)), "lost before lostAfter after the server answered")
	l.Beat("n1", "boot", back.Add(after/2))
	assert.Equal(t, [][2]string{{"n2", "boot"}}, l.sweep(back.Add(after+time.Millisecond)),
		"n2, silent after the server answered, not lost then")
}

// The same through Run: a node silent through a server's stall and after it is lost lostAfter
// after the server answers again, not before, and not during the stall.
func TestLivenessRunWaitsOutAnUnansweredServer(t *testing.T) {
	const after = 200 * time.Millisecond
	lost := make(chan string, 4)
	l := NewLiveness(after, func(node, _ string) { lost <- node })
	link, probe := &fakeLink{}, &fakeProbe{}
	l.link, l.probe = link.state, probe.roundTrip
	probe.unanswered.Store(true)
	stalled := time.Now()
	l.Beat("n1", "boot", stalled)
	go l.Run(t.Context())

	require.Eventually(t, func() bool { return time.Since(stalled) > 3*after }, waitLong, 10*time.Millisecond)
	asked := probe.asked.Load()
	require.Eventually(t, func() bool { return probe.asked.Load() > asked }, waitLong, time.Millisecond)
	assert.Empty(t, lost, "a node lost while the server did not answer")

	probe.unanswered.Store(false)
	answered := time.Now()
	select {
	case node := <-lost:
		assert.Equal(t, "n1", node)
		assert.GreaterOrEqual(t, time.Since(answered), after, "lost before lostAfter after the server answered")
	case <-time.After(waitLong):
		t.Fatal("a node silent after the server answered never declared lost")
	}
}
