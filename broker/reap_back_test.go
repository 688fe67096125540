package broker

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// A node that beats again right at its loss verdict, before the gateway writes its devices
// offline, keeps them online in the registry: the gateway, hearing it back, leaves the entries
// as the node wrote them. The node here writes nothing when it hears of its loss (a real one
// shows its devices again, 8b8791c): only the gateway's guard keeps them online. Its leases
// are still revoked and the loss recorded: callers were told.
func TestReapLeavesANodeBackAtTheVerdict(t *testing.T) {
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	serials := []string{"d1", "d2"}
	revs := map[string]uint64{}
	for _, serial := range serials {
		revs[serial] = putDevice(t, s, DeviceEntry{Serial: serial, Node: "n1", State: StateOnline, Epoch: 3})
	}
	putLease(t, s, Lease{V: WireVersion, Serial: "d1", Node: "n1", Holder: Holder{Principal: "alice"}, Epoch: 3})

	var gw atomic.Pointer[Client] // the hook runs on the gateway's own goroutine
	var once sync.Once
	back := make(chan error, 1)
	logs := &verdictHook{Recorder: &logtest.Recorder{}, at: func(r slog.Record) {
		if r.Message != "node lost" {
			return
		}
		once.Do(func() {
			// The node returns between the verdict and the writes: the gateway hears it beat.
			n1.startBeats("boot-1")
			deadline := time.Now().Add(waitLong)
			for !slices.Contains(gw.Load().Nodes(), "n1") {
				if time.Now().After(deadline) {
					back <- fmt.Errorf("the gateway never heard n1 beat again")
					return
				}
				time.Sleep(5 * time.Millisecond) // polling a condition, within the deadline
			}
			back <- nil
		})
	}}
	c := startClient(t, s, ClientOptions{Reap: true, LostAfter: testLostAfter, Log: slog.New(logs)})
	gw.Store(c)
	for _, serial := range serials {
		waitCached(t, c, serial, StateOnline)
	}
	require.Eventually(t, func() bool { return slices.Contains(c.Nodes(), "n1") }, waitLong, 5*time.Millisecond, "n1 heard")

	n1.stopBeats()
	select {
	case err := <-back:
		require.NoError(t, err)
	case <-time.After(waitLong):
		t.Fatal("the silent node was never declared lost")
	}
	lostSubject := fmt.Sprintf(EventNodeT, "n1", "lost")
	require.Eventually(t, func() bool { return eventsAre(t, s, lostSubject, 1) }, waitLong, 10*time.Millisecond,
		"the loss, written after the devices, not recorded")

	for _, serial := range serials {
		d, rev := getDevice(t, s, serial)
		assert.Equal(t, StateOnline, d.State, "%s written offline under the node back: %+v", serial, d)
		assert.Equal(t, revs[serial], rev, "%s rewritten", serial)
		assert.Zero(t, events(t, s, devOffline("n1", serial)), "%s: an offline event for a device online", serial)
		got, _ := c.Device(serial)
		assert.Equal(t, StateOnline, got.State, "%s in the gateway's view", serial)
	}
	assert.False(t, hasLease(t, s, "d1"), "the lease of a node declared lost is still in KV")
	assert.True(t, slices.ContainsFunc(logs.Records(), func(r slog.Record) bool {
		return r.Message == "node back since it was declared lost: its devices' entries left as it wrote them"
	}), "the gateway did not say it left the entries")
}

// verdictHook records every log line and calls at with each, as it is logged.
type verdictHook struct {
	*logtest.Recorder
	at func(slog.Record)
}

func (h *verdictHook) Handle(ctx context.Context, r slog.Record) error {
	h.at(r)
	return h.Recorder.Handle(ctx, r)
}

func (h *verdictHook) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *verdictHook) WithGroup(string) slog.Handler      { return h }
