package android

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logged returns "LEVEL serial state" for each record with message msg.
func logged(r *logtest.Recorder, msg string) []string {
	var out []string
	for _, rec := range r.Records() {
		if rec.Message != msg {
			continue
		}
		line := rec.Level.String()
		rec.Attrs(func(a slog.Attr) bool {
			if a.Key == "serial" || a.Key == "state" {
				line += " " + a.Value.String()
			}
			return true
		})
		out = append(out, line)
	}
	return out
}

// A device that is offline for a moment on its way in is logged at DEBUG only; one that stays
// offline (or connecting) is reported at WARN once, after settleTime, if the adb server still
// lists it so; a state that needs someone is reported at once.
func TestAttachSettling(t *testing.T) {
	logs := &logtest.Recorder{}
	listed := map[string]string{}
	var mu sync.Mutex
	a := &attacher{reg: newRegistry(), addr: "127.0.0.1:1", log: slog.New(logs), live: map[string]*attachment{},
		settling: map[string]settling{}, states: func(context.Context) (map[string]string, error) {
			mu.Lock()
			defer mu.Unlock()
			return maps.Clone(listed), nil
		}}
	ctx, cancel := context.WithCancel(t.Context())
	defer func() { cancel(); a.wg.Wait() }()
	t0 := time.Now()
	a.event(ctx, Event{Kind: Unusable, Serial: "ready", State: "offline"}, t0)
	a.event(ctx, Event{Kind: Unusable, Serial: "ready", State: "connecting"}, t0.Add(time.Millisecond))
	a.event(ctx, Event{Kind: Added, Serial: "ready", State: "device"}, t0.Add(3*time.Millisecond))
	a.event(ctx, Event{Kind: Unusable, Serial: "stuck", State: "offline"}, t0)
	a.event(ctx, Event{Kind: Unusable, Serial: "gone", State: "connecting"}, t0)
	a.event(ctx, Event{Kind: Unusable, Serial: "locked", State: "unauthorized"}, t0)
	mu.Lock()
	listed["ready"], listed["stuck"], listed["locked"] = "device", "offline", "unauthorized"
	mu.Unlock()

	assert.Equal(t, []string{"WARN locked unauthorized"}, logged(logs, "android device not usable"),
		"only the state that needs someone is reported at once")
	assert.Equal(t, []string{"DEBUG ready offline", "DEBUG ready connecting", "DEBUG stuck offline", "DEBUG gone connecting"},
		logged(logs, "android device not ready yet"))

	a.checkSettling(ctx, t0.Add(settleTime-time.Millisecond))
	assert.Len(t, logged(logs, "android device not usable"), 1, "reported before settleTime")
	a.checkSettling(ctx, t0.Add(settleTime))
	a.checkSettling(ctx, t0.Add(2*settleTime))
	require.Equal(t, []string{"WARN locked unauthorized", "WARN stuck offline"}, logged(logs, "android device not usable"),
		"a device still offline after settleTime is reported once; one that became ready or left is not")
}

// Attaching simulated devices through the real adb server, which lists each as offline for a
// moment before it is ready, logs nothing about them above DEBUG but "attached".
func TestAttachLogsNoTransientState(t *testing.T) {
	addr := sharedServer(t)
	logs := &logtest.Recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	reg := newRegistry()
	done := make(chan error, 1)
	go func() { done <- Attach(ctx, reg, addr, slog.New(logs)) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()
	dev := startDevice(t)
	t.Cleanup(func() { shared.srv.disconnect(dev) })
	shared.srv.connect(t, dev)
	serial := dev.Serial()
	reg.waitFor(t, 5*time.Second, "attached", func(r *registry) bool { return r.drivers[serial] != nil })
	require.Eventually(t, func() bool { return slices.Contains(logged(logs, "android device attached"), "INFO "+serial) },
		5*time.Second, 10*time.Millisecond, "attached is logged")
	for _, line := range logged(logs, "android device not usable") {
		assert.NotContains(t, line, serial, "a device on its way in was reported as not usable")
	}
	t.Logf("on the way in: %v", logged(logs, "android device not ready yet"))
}
