package console

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// The first read after a quiet spell is fresh: a value maxStale old is fetched again before get
// answers (QA: it answered the old value, however old, and refreshed behind it), readers who
// come together share that one fetch, and version, the long poll's look, still never waits.
func TestCacheReadAfterAQuietSpellIsFresh(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	var fetches atomic.Int64
	hold := make(chan struct{}) // closed: fetches answer at once
	close(hold)
	var holdMu sync.Mutex
	c := newCached(time.Second, func(context.Context) (int64, error) {
		holdMu.Lock()
		h := hold
		holdMu.Unlock()
		<-h
		return fetches.Add(1), nil
	})
	c.now = clock.now
	ctx := t.Context()

	if v, _ := c.get(ctx); v != 1 {
		t.Fatalf("first get: %d, want 1", v)
	}
	clock.advance(maxStale + 10*time.Second) // a quiet spell
	if v, _ := c.get(ctx); v != 2 {
		t.Fatalf("the first get after a quiet spell answered the value fetched before it (%d); want the one fetched after (2)", v)
	}

	// Readers after another quiet spell share one fetch.
	clock.advance(maxStale)
	var wg sync.WaitGroup
	got := make([]int64, 8)
	for i := range got {
		wg.Go(func() { got[i], _ = c.get(ctx) })
	}
	wg.Wait()
	for i, v := range got {
		if v != 3 {
			t.Errorf("reader %d after the second spell: %d, want 3 (one fetch for all)", i, v)
		}
	}
	if n := fetches.Load(); n != 3 {
		t.Errorf("%d fetches, want 3: the readers did not share theirs", n)
	}

	// version answers at once, a fetch held up behind it.
	holdMu.Lock()
	hold = make(chan struct{})
	holdMu.Unlock()
	clock.advance(maxStale)
	vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := c.version(vctx); err != nil {
		t.Errorf("version waited for a held fetch: %v", err)
	}
	holdMu.Lock()
	close(hold)
	holdMu.Unlock()
}
