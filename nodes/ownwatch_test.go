package nodes_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
)

// A node connected all along whose devices a gateway wrote offline for a loss, with no loss
// event after (QA: the gateway's write sent into a 40 s NATS stall landed after it gave up on
// the event), hears of the loss from the registry: its devices show online again, not offline
// for good while it serves them, and the lease the farm dropped is revoked (fenced).
func TestNodeSeesItsLossInTheRegistryWithoutTheEvent(t *testing.T) {
	const node, serial = "n1", "n1-p1"
	r := newRestartRig(t, false) // nobody declares the node lost but the test
	r.startNode(node, serial)
	r.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	old := r.acquire(serial, "alice")
	leased := r.waitEntry(node, serial, "leased", func(d broker.DeviceEntry) bool { return d.State == broker.StateLeased })

	// What the stalled gateway's write leaves: the entry offline for the loss, no event.
	lost := leased
	lost.State, lost.Reason, lost.Holder, lost.Updated = broker.StateOffline, "node "+node+" lost: no heartbeat for 2.5s", "", time.Now()
	require.True(t, broker.DeclaredLost(lost))
	b, err := json.Marshal(lost)
	require.NoError(t, err)
	_, err = r.stores.Registry.Put(r.ctx, broker.RegistryKey(node, serial), b)
	require.NoError(t, err)

	back := r.waitEntry(node, serial, "online again, its lease revoked", func(d broker.DeviceEntry) bool {
		return d.State == broker.StateOnline && d.Holder == ""
	})
	assert.Greater(t, back.Epoch, old.Epoch, "the epoch did not move on: the old lease is not fenced")
	r.waitDevice(serial, "online again in the gateway's view", func(d broker.DeviceEntry) bool {
		return d.State == broker.StateOnline && d.Epoch >= back.Epoch
	})
	res := r.run(serial, old.Handle, "alice")
	assert.Equal(t, broker.OutcomeRefused, res.Outcome, "the lease the farm dropped still runs calls: %+v", res)
	next := r.acquire(serial, "bob")
	res = r.run(serial, next.Handle, "bob")
	assert.Equal(t, broker.OutcomeSucceeded, res.Outcome, "%+v", res)
}

// A normal loss reaches the node twice: the gateway writes its devices offline, then sends the
// event. The node takes both as the one verdict they are: it revokes once and says so once, not
// a second INFO line 'declared this node lost again' as if a second verdict had come.
func TestNodeHearsOneLossOnceFromEventAndEntries(t *testing.T) {
	const node, serial = "n1", "n1-p1"
	r := newRestartRig(t, false) // nobody declares the node lost but the test
	var logs logtest.Recorder
	r.log = slog.New(&logs)
	r.startNode(node, serial)
	r.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	r.acquire(serial, "alice")
	leased := r.waitEntry(node, serial, "leased", func(d broker.DeviceEntry) bool { return d.State == broker.StateLeased })

	// What a reaping gateway does: the entry offline for the loss, then the event.
	lost := leased
	lost.State, lost.Reason, lost.Holder, lost.Updated = broker.StateOffline, "node "+node+" lost: no heartbeat for 2.5s", "", time.Now()
	b, err := json.Marshal(lost)
	require.NoError(t, err)
	_, err = r.stores.Registry.Put(r.ctx, broker.RegistryKey(node, serial), b)
	require.NoError(t, err)
	ev := fmt.Sprintf(`{"v":1,"kind":"node","node":%q,"what":"lost","at":%q}`, node, time.Now().Format(time.RFC3339Nano))
	require.NoError(t, r.gwNC.Publish(fmt.Sprintf(broker.EventNodeT, node, "lost"), []byte(ev)))

	r.waitEntry(node, serial, "online again, its lease revoked", func(d broker.DeviceEntry) bool {
		return d.State == broker.StateOnline && d.Holder == ""
	})
	lines := func(prefix string, min slog.Level) []slog.Record {
		var out []slog.Record
		for _, rec := range logs.Records() {
			if strings.HasPrefix(rec.Message, prefix) && rec.Level >= min {
				out = append(out, rec)
			}
		}
		return out
	}
	farmtest.Eventually(t, 15*time.Second, func() bool {
		return len(lines("heard again of the loss", slog.LevelDebug))+len(lines("the farm declared this node lost again", slog.LevelDebug)) > 0
	}, "the node never heard the loss the second way (event or entry)")
	said := lines("the farm declared this node lost", slog.LevelInfo)
	require.Len(t, said, 1, "one loss, said more than once: %v", said)
	assert.Equal(t, slog.LevelWarn, said[0].Level, "the one line is not the revoking one")
}
