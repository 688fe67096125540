package android

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A device the adb server lists offline has that as its reason, with what to do; once the
// server no longer lists it (`adb reconnect offline` dropped it), its reason says so instead of
// still naming the state it left.
func TestAttachReasonFollowsTheListOnceOffline(t *testing.T) {
	srv := privateServer(t)
	dev := startDevice(t)
	srv.connect(t, dev)
	reg, _ := attachLogged(t, srv.addr())
	serial := dev.Serial()
	reg.waitFor(t, 10*time.Second, "attached", func(r *registry) bool { return r.drivers[serial] != nil })

	dev.Kill()
	offline := RemovedReason + " (adb lists it offline): " + StateHint("offline")
	reg.waitFor(t, 10*time.Second, "removed as listed offline", func(r *registry) bool { return r.removed[serial] == offline })

	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if out, err := srv.cmd(ctx, "reconnect", "offline").CombinedOutput(); err != nil {
		t.Fatalf("adb reconnect offline: %v: %s", err, out)
	}
	reg.waitFor(t, 20*time.Second, "its reason says it is no longer listed", func(r *registry) bool { return r.removed[serial] == RemovedReason })
}

// The reason of a device removed while listed in another state follows that state, and the
// adb server going down; one that was never attached is no news.
func TestAttachReasonOfAListedDevice(t *testing.T) {
	reg := newRegistry()
	a := &attacher{reg: reg, addr: "127.0.0.1:1", log: slog.New(slog.DiscardHandler), live: map[string]*attachment{"A": {cancel: func() {}, added: true}},
		settling: map[string]settling{}}
	ctx, now := t.Context(), time.Now()
	a.event(ctx, Event{Kind: Removed, Serial: "A", State: "offline"}, now)
	a.event(ctx, Event{Kind: Unusable, Serial: "A", State: "offline"}, now)
	assert.Equal(t, RemovedReason+" (adb lists it offline): "+StateHint("offline"), reg.removed["A"])
	a.event(ctx, Event{Kind: Unusable, Serial: "A", State: "unauthorized"}, now)
	assert.Equal(t, RemovedReason+" (adb lists it unauthorized): "+StateHint("unauthorized"), reg.removed["A"])
	a.event(ctx, Event{Kind: Gone, Serial: "A"}, now)
	assert.Equal(t, RemovedReason, reg.removed["A"])
	a.event(ctx, Event{Kind: Gone, Serial: "B"}, now)
	assert.NotContains(t, reg.removed, "B")

	down := &ServerDownError{Addr: a.addr, Err: context.DeadlineExceeded}
	a.event(ctx, Event{Kind: Unusable, Serial: "A", State: "offline"}, now) // listed again, not ready
	assert.Equal(t, RemovedReason+" (adb lists it offline): "+StateHint("offline"), reg.removed["A"])
	a.event(ctx, Event{Kind: ServerDown, Err: down}, now)
	a.event(ctx, Event{Kind: Gone, Serial: "A", Err: down}, now)
	assert.Equal(t, down.Error(), reg.removed["A"], "the server is down")
	assert.Equal(t, map[string]bool{"A": true}, a.gone, "looked at again when the server is back")
}
