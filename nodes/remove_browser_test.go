package nodes

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/nodes/web"
)

// chromiumStarts makes CORRAL_CHROMIUM a script that notes each start of Chromium in a file
// and, while the hold file exists, holds it before running the real Chromium in its place.
type chromiumStarts struct {
	t         *testing.T
	log, hold string
}

func countChromiumStarts(t *testing.T) *chromiumStarts {
	t.Helper()
	chrome, err := chromium.Find()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	c := &chromiumStarts{t: t, log: filepath.Join(dir, "starts"), hold: filepath.Join(dir, "hold")}
	script := filepath.Join(dir, "counted-chromium")
	body := fmt.Sprintf("#!/bin/sh\necho start >> %q\nwhile [ -e %q ]; do sleep 0.02; done\nexec %q \"$@\"\n", c.log, c.hold, chrome)
	require.NoError(t, os.WriteFile(script, []byte(body), 0o755))
	t.Setenv("CORRAL_CHROMIUM", script)
	t.Cleanup(c.release) // a start still held ends with its device all the same
	return c
}

// count is how many Chromium starts have begun.
func (c *chromiumStarts) count() int {
	b, err := os.ReadFile(c.log)
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(c.t, err)
	return bytes.Count(b, []byte("start\n"))
}

// holdNext holds the starts from now on, until release.
func (c *chromiumStarts) holdNext() { require.NoError(c.t, os.WriteFile(c.hold, nil, 0o644)) }

func (c *chromiumStarts) release() {
	if err := os.Remove(c.hold); err != nil && !os.IsNotExist(err) {
		c.t.Error(err)
	}
}

// closedLate is a browser device whose Close, called by RemoveDevice, first waits for the
// scheduler to revoke the device's lease and for a wipe that revocation asked for to reach
// Chromium's start: the order a loaded node may see, made certain.
type closedLate struct {
	*web.Driver
	revoked chan struct{}
	once    sync.Once
	wipes   *wiper
	starts  *chromiumStarts
	before  int // Chromium starts before the removal
}

func (c *closedLate) Leased(held bool) {
	c.Driver.Leased(held)
	if !held {
		c.once.Do(func() { close(c.revoked) })
	}
}

func (c *closedLate) Close() error {
	select {
	case <-c.revoked:
	case <-time.After(15 * time.Second):
		c.starts.t.Error("the scheduler did not revoke the removed device's lease within 15 s")
	}
	// The wipe, if the revocation asked for one, began before the lease's end reached the
	// driver (boundDevice.Leased); its Chromium start comes next.
	if busy, _ := c.wipes.state(); busy {
		deadline := time.Now().Add(30 * time.Second)
		for c.starts.count() == c.before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // polling a condition
		}
	}
	return c.Driver.Close()
}

// Brief C 1: the scheduler could act on a browser's removal (its lease revoked, a wipe asked
// for the next holder) before RemoveDevice reached the device's Close: the wipe started a
// Chromium that Close then killed, a wasted start that Close may have to wait for. The device
// is marked removed before the scheduler is told: no browser start begins after RemoveDevice.
func TestRemovedBrowserStartsNoChromiumForItsLastHoldersWipe(t *testing.T) {
	starts := countChromiumStarts(t)
	ctx, stores, _ := mirrorStores(t)
	n, _ := startLogged(t, ctx, stores)
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	drv, err := web.Start(sctx, web.Options{Serial: "web-unplugged", Profile: web.Profiles[0]})
	require.NoError(t, err)
	t.Cleanup(func() { _ = drv.Close() })
	d := &closedLate{Driver: drv, revoked: make(chan struct{}), starts: starts}
	n.AddDriver(d)
	n.mu.Lock()
	d.wipes = n.bound["web-unplugged"].wipes
	n.mu.Unlock()
	require.NotNil(t, d.wipes, "a browser device has no wiper")

	granted := func() bool {
		answer := make(chan broker.LeaseAnswer, 1)
		n.system.Root.Send(n.sched, actors.AcquireLease{Req: broker.AcquireRequest{V: broker.WireVersion, Serial: "web-unplugged",
			Holder: broker.Holder{Principal: "alice"}}, Reply: func(a broker.LeaseAnswer) { answer <- a }})
		return (<-answer).OK
	}
	require.Eventually(t, granted, 30*time.Second, 20*time.Millisecond, "alice never got a lease of the browser")

	d.before = starts.count()
	starts.holdNext() // a start after this one stays held: Close ends it, it never runs
	n.RemoveDevice("web-unplugged", "unplugged")
	if got := starts.count(); got != d.before {
		t.Errorf("%d Chromium start(s) began after RemoveDevice (before it: %d): the wipe for the next holder started a browser only for Close to kill it",
			got-d.before, d.before)
	}
	if d.Running() {
		t.Error("the removed device's browser still runs")
	}
}
