package nodes_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/web"
)

// wipeCounting is a browser device that counts the node's wipes of it (Reset), begun and ended.
type wipeCounting struct {
	*web.Driver
	begun, ended atomic.Int32
}

func (w *wipeCounting) Reset(ctx context.Context) error {
	w.begun.Add(1)
	defer w.ended.Add(1)
	return w.Driver.Reset(ctx)
}

// Brief C 1: a node's stop revokes its leases, and each leased browser's wipe started a fresh
// Chromium only for the node to close it a moment later (logging that the reset failed: "the
// device was closed while its browser started"). A lease revoked by the stop asks for no wipe;
// the device's Close removes the holder's profile directory, so the next start begins afresh.
// A release before the stop is wiped as ever.
func TestNodeStopDoesNotWipeItsLeasedBrowsers(t *testing.T) {
	if _, err := chromium.Find(); err != nil {
		t.Skip(err)
	}
	r := newRestartRig(t, false)
	logs := &logtest.Buffer{}
	ctx, cancel := context.WithTimeout(r.ctx, time.Minute)
	defer cancel()
	drv, err := web.Start(ctx, web.Options{Serial: "web-held", Profile: web.Profiles[0], Log: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	d := &wipeCounting{Driver: drv}
	t.Cleanup(func() { _ = d.Close() })
	n := r.startNodeWithDrivers("n1", d)
	online := func(e broker.DeviceEntry) bool { return e.State == broker.StateOnline }
	r.waitDevice("web-held", "online", online)

	// A release is wiped, as before the stop.
	l := r.acquire("web-held", "alice")
	r.release("web-held", l.Handle)
	farmtest.Eventually(t, time.Minute, func() bool { return d.ended.Load() == 1 }, "the wipe after a release")
	r.waitDevice("web-held", "online after the wipe", online)

	// Held as the node stops.
	l = r.acquire("web-held", "bob")
	if res := r.run("web-held", l.Handle, "bob"); res.Outcome != broker.OutcomeSucceeded {
		t.Fatalf("a task under bob's lease: %+v", res)
	}
	profile := filepath.Dir(d.Downloads())
	if profile == "." {
		t.Fatal("the held browser has no profile directory")
	}
	n.Stop()
	// A wipe the stop started would have begun at the revocation, long before Stop returns
	// (it drains NATS after); wait for any under way to end.
	farmtest.Eventually(t, time.Minute, func() bool { return d.begun.Load() == d.ended.Load() }, "wipes under way to end")
	if got := d.begun.Load(); got != 1 {
		t.Errorf("the node wiped the browser %d times in all, want 1 (the release's): its stop wiped the leased browser, starting a Chromium only to close it", got)
	}
	if d.Running() {
		t.Error("the browser runs after the node stopped")
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Errorf("bob's profile directory %s after the node stopped: %v, want it removed", profile, err)
	}
	if text := logs.String(); strings.Contains(text, "level=WARN") || strings.Contains(text, "level=ERROR") {
		t.Errorf("the browser device's log as the node stopped says something alarming:\n%s", text)
	}
}
