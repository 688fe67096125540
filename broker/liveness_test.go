package broker

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// isClosed says whether a Lost context has ended.
func isClosed(ctx context.Context) bool { return ctx.Err() != nil }

// t0 is an arbitrary instant: sweep is driven with explicit times from it.
var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// A node that keeps beating is never lost, however long it lives.
func TestLivenessBeatingNodeStaysAlive(t *testing.T) {
	const after = time.Second
	l := NewLiveness(after, nil)
	for i := range 40 {
		now := t0.Add(time.Duration(i) * after / 2)
		l.Beat("n1", "boot-a", now)
		require.Empty(t, l.sweep(now), "beat %d", i)
		require.Empty(t, l.sweep(now.Add(after/2)), "just before beat %d", i+1)
	}
	assert.Equal(t, []string{"n1"}, l.Alive())
	assert.False(t, isClosed(l.Lost("n1")), "Lost(n1) closed though n1 beats")
}

// A node silent for lostAfter is declared lost once, with the boot of its last beat: its Lost
// channel closes and Alive drops it. Others are untouched.
func TestLivenessSilentNodeIsLostOnce(t *testing.T) {
	const after = time.Second
	l := NewLiveness(after, nil)
	l.Beat("n1", "boot-a", t0)
	l.Beat("n2", "boot-b", t0)
	lost1, lost2 := l.Lost("n1"), l.Lost("n2")
	require.False(t, isClosed(lost1), "Lost(n1) closed right after a beat")

	assert.Empty(t, l.sweep(t0.Add(after-time.Millisecond)), "lost before lostAfter of silence")
	assert.Equal(t, []string{"n1", "n2"}, l.Alive())
	l.Beat("n2", "boot-b", t0.Add(after/2))

	require.Equal(t, [][2]string{{"n1", "boot-a"}}, l.sweep(t0.Add(after+time.Millisecond)),
		"n1 silent for lostAfter; n2 beat since")
	assert.True(t, isClosed(lost1), "Lost(n1) taken before the loss not closed")
	assert.True(t, isClosed(l.Lost("n1")), "Lost(n1) taken after the loss not closed")
	assert.False(t, isClosed(lost2), "Lost(n2) closed though n2 beats")
	assert.Equal(t, []string{"n2"}, l.Alive())

	// Declared once: later sweeps report only n2 when its turn comes, never n1 again (nor
	// panic closing its channel twice).
	assert.Empty(t, l.sweep(t0.Add(after+2*time.Millisecond)), "n1 reported lost twice")
	assert.Equal(t, [][2]string{{"n2", "boot-b"}}, l.sweep(t0.Add(after/2+after+time.Millisecond)))
	assert.True(t, isClosed(lost2))
	assert.Empty(t, l.Alive())
	assert.Empty(t, l.sweep(t0.Add(10*after)))
}

// A lost node that beats again (a restart with a new boot, or a healed partition with the
// same one) is alive again, with a fresh Lost channel that is open, and can be lost again.
func TestLivenessLostNodeBeatsAgain(t *testing.T) {
	const after = time.Second
	for _, boot := range []string{"boot-b", "boot-a"} {
		l := NewLiveness(after, nil)
		l.Beat("n1", "boot-a", t0)
		require.Len(t, l.sweep(t0.Add(2*after)), 1)
		old := l.Lost("n1")
		require.True(t, isClosed(old))
		require.Empty(t, l.Alive())

		back := t0.Add(3 * after)
		l.Beat("n1", boot, back)
		assert.Equal(t, []string{"n1"}, l.Alive(), "%s: not alive after beating again", boot)
		fresh := l.Lost("n1")
		assert.False(t, isClosed(fresh), "%s: Lost(n1) still closed after the node came back", boot)
		assert.Empty(t, l.sweep(back.Add(after/2)), "%s: lost again at once", boot)
		assert.False(t, isClosed(fresh))

		// Silent again: lost again, reported with the boot of its latest beat.
		assert.Equal(t, [][2]string{{"n1", boot}}, l.sweep(back.Add(after+time.Millisecond)), boot)
		assert.True(t, isClosed(fresh), "%s: the fresh Lost channel not closed by the second loss", boot)
		assert.Empty(t, l.Alive())
	}
}

// back (the reaper's guard) is true only for a node heard since it was last declared lost:
// not for one known from the registry alone, nor while it is lost, nor once it said it stopped.
func TestLivenessBackSinceTheVerdict(t *testing.T) {
	const after = time.Second
	l := NewLiveness(after, nil)
	l.Expect("n1")
	assert.False(t, l.back("n1"), "known from the registry only")
	assert.False(t, l.back("n2"), "unknown")
	l.Beat("n1", "boot-a", t0)
	require.Len(t, l.sweep(t0.Add(2*after)), 1)
	assert.False(t, l.back("n1"), "lost, not heard since")
	l.Expect("n1")
	assert.False(t, l.back("n1"), "the registry's word revived a lost node")
	l.Beat("n1", "boot-a", t0.Add(3*after))
	assert.True(t, l.back("n1"), "heard since its verdict")
	require.True(t, l.Stopped("n1", t0.Add(3*after)))
	assert.False(t, l.back("n1"), "said it stopped")
}

// Expect gives an unknown node lostAfter to beat; it neither extends the time of a node it
// knows nor revives a lost one (only a beat does).
func TestLivenessExpect(t *testing.T) {
	const after = time.Second
	l := NewLiveness(after, nil)
	before := time.Now()
	l.Expect("n1")
	expected := time.Now()
	assert.Equal(t, []string{"n1"}, l.Alive())
	assert.False(t, isClosed(l.Lost("n1")), "an expected node is not lost yet")
	assert.Empty(t, l.sweep(before.Add(after)), "expected node lost before lostAfter")
	assert.Equal(t, [][2]string{{"n1", ""}}, l.sweep(expected.Add(after+time.Millisecond)),
		"expected node that never beat not lost after lostAfter")
	assert.True(t, isClosed(l.Lost("n1")))

	// Expect of a node that beat keeps its last beat and boot.
	l.Beat("n2", "boot-b", before.Add(-after))
	l.Expect("n2")
	assert.Equal(t, [][2]string{{"n2", "boot-b"}}, l.sweep(before.Add(time.Millisecond)),
		"Expect reset the clock of a node that had beaten")

	// Expect of a lost node (a registry update of one of its devices) does not revive it.
	l.Expect("n1")
	l.Expect("n2")
	assert.Empty(t, l.Alive(), "Expect revived a lost node")
	assert.True(t, isClosed(l.Lost("n1")))
	assert.True(t, isClosed(l.Lost("n2")))
}

// A node never heard of is lost: a request to it fails at once rather than wait (once the
// tracker has listened for lostAfter: TestLivenessYoungTrackerWaitsForUnknownNodes).
func TestLivenessUnknownNode(t *testing.T) {
	l := NewLiveness(time.Second, nil)
	l.born = l.born.Add(-time.Second)
	assert.True(t, isClosed(l.Lost("nobody")), "Lost of an unknown node not closed")
	assert.Empty(t, l.Alive())
	assert.Empty(t, l.sweep(t0))
	assert.Empty(t, l.Alive(), "asking about a node started tracking it")
}

// lostAfter <= 0 means LostAfter.
func TestNewLivenessDefault(t *testing.T) {
	assert.Equal(t, LostAfter, NewLiveness(0, nil).lostAfter)
	assert.Equal(t, LostAfter, NewLiveness(-time.Second, nil).lostAfter)
	assert.Equal(t, time.Second, NewLiveness(time.Second, nil).lostAfter)
}

// Run calls onLost once per loss, from its own goroutine, and returns when ctx ends.
func TestLivenessRun(t *testing.T) {
	type loss struct{ node, boot string }
	losses := make(chan loss, 16)
	const after = 50 * time.Millisecond
	l := NewLiveness(after, func(node, boot string) { losses <- loss{node, boot} })
	runCtx, stop := context.WithCancel(t.Context())
	defer stop()
	done := make(chan struct{})
	go func() { defer close(done); l.Run(runCtx) }()

	next := func() loss {
		t.Helper()
		select {
		case got := <-losses:
			return got
		case <-time.After(10 * time.Second):
			t.Fatal("onLost not called within 10s")
			return loss{}
		}
	}
	l.Beat("n1", "boot-a", time.Now())
	assert.Equal(t, loss{"n1", "boot-a"}, next())
	assert.True(t, isClosed(l.Lost("n1")))
	// Back, then silent again: the next call is this second loss, so the first was reported
	// only once.
	l.Beat("n1", "boot-b", time.Now())
	assert.Equal(t, loss{"n1", "boot-b"}, next())

	stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its context's end")
	}

	// Without onLost, Run still declares nodes lost.
	quiet := NewLiveness(after, nil)
	go quiet.Run(t.Context())
	quiet.Beat("n2", "boot-c", time.Now())
	select {
	case <-quiet.Lost("n2").Done():
	case <-time.After(10 * time.Second):
		t.Fatal("n2 not declared lost within 10s")
	}
}

// Beats, questions and sweeps may come from many goroutines at once (-race checks).
func TestLivenessConcurrent(t *testing.T) {
	l := NewLiveness(time.Second, nil)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				now := t0.Add(time.Duration(i) * time.Millisecond)
				node := []string{"n1", "n2", "n3"}[(g+i)%3]
				switch i % 5 {
				case 0:
					l.Expect(node)
				case 1:
					l.sweep(now.Add(time.Duration(i%3) * time.Second))
				case 2:
					_ = l.Alive()
				case 3:
					isClosed(l.Lost(node))
				default:
					l.Beat(node, "boot", now)
				}
			}
		})
	}
	wg.Wait()
}

// A verdict waits until the heartbeats already delivered have been read: a beat that was
// queued while the process was busy keeps its node alive; a process that cannot catch up
// holds its verdict for at most twice lostAfter.
func TestLivenessVerdictWaitsForQueuedBeats(t *testing.T) {
	const after = 200 * time.Millisecond
	var lost atomic.Int64
	l := NewLiveness(after, func(string, string) { lost.Add(1) })
	// Catching up reads a beat of n1 that was waiting: n1 is alive.
	var asked atomic.Int64
	l.caughtUp = func() bool {
		asked.Add(1)
		l.Beat("n1", "boot", time.Now())
		return true
	}
	l.Beat("n1", "boot", time.Now().Add(-time.Second))
	go l.Run(t.Context())
	require.Eventually(t, func() bool { return asked.Load() >= 3 }, 10*time.Second, 5*time.Millisecond)
	assert.Zero(t, lost.Load(), "a node whose beat waited in the queue was declared lost")
	assert.False(t, isClosed(l.Lost("n1")))

	// Never caught up: no verdict before twice lostAfter of silence, one after it.
	never := NewLiveness(after, nil)
	never.caughtUp = func() bool { return false }
	start := time.Now()
	never.Beat("n2", "boot", start)
	go never.Run(t.Context())
	select {
	case <-never.Lost("n2").Done():
		assert.GreaterOrEqual(t, time.Since(start), 2*after, "declared lost before twice lostAfter")
	case <-time.After(10 * time.Second):
		t.Fatal("a process that never catches up never declared n2 lost")
	}
}
