package nodes_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
)

// deviceEvents reads the event stream's device events of serial, oldest first.
func deviceEvents(t *testing.T, stores *broker.Stores, node, serial string) []broker.Event {
	t.Helper()
	c, err := stores.Events.OrderedConsumer(t.Context(), jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{fmt.Sprintf(broker.EventDevT, node, broker.Token(serial), "*")}})
	require.NoError(t, err)
	info, err := c.Info(t.Context())
	require.NoError(t, err)
	var out []broker.Event
	for pending := info.NumPending; pending > 0; pending-- {
		m, err := c.Next(jetstream.FetchMaxWait(5 * time.Second))
		require.NoError(t, err)
		var ev broker.Event
		require.NoError(t, json.Unmarshal(m.Data(), &ev))
		out = append(out, ev)
	}
	return out
}

// whats lists the states of events.
func whats(events []broker.Event) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = ev.What
	}
	return out
}

// QA: after a loss, the node back shows its devices online in the registry, but the stream's
// last word on them stayed "offline" (the gateway's), as the scheduler records a state only when
// it changes in the node. Each loss of one run (a node cut off twice within the stream's
// 2-minute deduplication window) is recorded, offline then online. The lease the loss revoked
// says why in words without parentheses in parentheses.
func TestDeviceBackAfterALossIsRecordedOnline(t *testing.T) {
	const node, serial = "n1", "n1-p1"
	o := newOutageRig(t)
	o.startNode(node, serial)
	o.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	old := o.acquire(serial, "alice")
	o.waitEntry(node, serial, "leased", func(d broker.DeviceEntry) bool { return d.State == broker.StateLeased })
	var before []string
	farmtest.Eventually(t, 15*time.Second, func() bool {
		before = whats(deviceEvents(t, o.stores, node, serial))
		return len(before) > 0 && before[len(before)-1] == broker.StateLeased
	}, "the device's events until its lease")

	declared := make(chan *nats.Msg, 4)
	sub, err := o.gwNC.ChanSubscribe(fmt.Sprintf(broker.EventNodeT, node, "lost"), declared)
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, o.gwNC.Flush())
	want := before
	for loss := 1; loss <= 2; loss++ {
		o.link.Cut()
		waitLost(t, declared)
		o.link.Heal()
		o.waitEntry(node, serial, "online again", func(d broker.DeviceEntry) bool {
			return d.State == broker.StateOnline && d.Holder == ""
		})
		want = append(want, broker.StateOffline, broker.StateOnline)
		var got []string
		farmtest.Eventually(t, 15*time.Second, func() bool {
			got = whats(deviceEvents(t, o.stores, node, serial))
			return len(got) >= len(want)
		}, "loss %d: the device's events", loss)
		require.Equal(t, want, got, "loss %d", loss)
		lost := fmt.Sprintf(broker.EventNodeT, node, "lost")
		info, err := o.stores.Events.Info(o.ctx, jetstream.WithSubjectFilter(lost))
		require.NoError(t, err)
		assert.EqualValues(t, loss, info.State.Subjects[lost], "loss %d: the node's losses recorded", loss)
	}

	o.waitDevice(serial, "online in the gateway's view", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	res := o.run(serial, old.Handle, "alice")
	require.Equal(t, broker.CodeStaleLease, res.Code, "%+v", res)
	assert.Contains(t, res.Error, "(node n1 missed its heartbeats and was declared lost by the farm)")
	assert.NotRegexp(t, `\([^()]*\(`, res.Error, "parentheses in parentheses")
}

// A node connected when it is declared lost hears the loss twice, from the event and from the
// entries (and more from a second gateway's event): it records each device shown again once
// per offline entry of the loss, not at every reshow. A verdict written over its answer is
// another offline entry, and the device is recorded online again after it.
func TestDeviceBackIsRecordedOncePerOfflineEntry(t *testing.T) {
	const node, serial = "n1", "n1-p1"
	r := newRestartRig(t, false) // nobody declares the node lost but the test
	var logs logtest.Recorder
	r.log = slog.New(&logs)
	r.startNode(node, serial)
	r.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	shown := r.waitEntry(node, serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	before := whats(deviceEvents(t, r.stores, node, serial))

	// What a reaping gateway does: the entry offline for the loss, its event, the loss's event.
	// The node, watching its entries, may record the device shown again before the gateway's
	// event lands; it records that same event first (shown_again_order_test.go).
	declare := func(e broker.DeviceEntry) (rev uint64) {
		e.State, e.Reason, e.Holder, e.Updated = broker.StateOffline, "node "+node+" lost: no heartbeat for 2.5s", "", time.Now()
		b, err := json.Marshal(e)
		require.NoError(t, err)
		rev, err = r.stores.Registry.Put(r.ctx, broker.RegistryKey(node, serial), b)
		require.NoError(t, err)
		ev, id := broker.LostDeviceEvent(e)
		data, err := json.Marshal(ev)
		require.NoError(t, err)
		_, err = r.stores.JS.PublishMsg(r.ctx, &nats.Msg{Subject: fmt.Sprintf(broker.EventDevT, node, broker.Token(serial), broker.StateOffline),
			Data: data}, jetstream.WithMsgID(id))
		require.NoError(t, err)
		return rev
	}
	lostEvent := func() {
		ev := fmt.Sprintf(`{"v":1,"kind":"node","node":%q,"what":"lost","at":%q}`, node, time.Now().Format(time.RFC3339Nano))
		require.NoError(t, r.gwNC.Publish(fmt.Sprintf(broker.EventNodeT, node, "lost"), []byte(ev)))
	}
	heardAgain := func() int {
		n := 0
		for _, rec := range logs.Records() {
			if strings.HasPrefix(rec.Message, "heard again of the loss") || strings.HasPrefix(rec.Message, "the farm declared this node lost again") {
				n++
			}
		}
		return n
	}
	declare(shown)
	lostEvent()
	farmtest.Eventually(t, 15*time.Second, func() bool { return heardAgain() >= 1 }, "the loss heard the second way")
	lostEvent() // a second gateway's event: the devices are shown again, and recorded no more
	farmtest.Eventually(t, 15*time.Second, func() bool { return heardAgain() >= 2 }, "the second gateway's event heard")
	answer := r.waitEntry(node, serial, "online again", func(d broker.DeviceEntry) bool {
		return d.State == broker.StateOnline && d.Epoch > shown.Epoch
	})

	late := declare(answer) // a late gateway's verdict, over the answer
	farmtest.Eventually(t, 15*time.Second, func() bool {
		e, err := r.stores.Registry.Get(r.ctx, broker.RegistryKey(node, serial))
		var d broker.DeviceEntry
		return err == nil && e.Revision() > late && json.Unmarshal(e.Value(), &d) == nil && d.State == broker.StateOnline
	}, "online again over the late verdict")
	want := append(before, broker.StateOffline, broker.StateOnline, broker.StateOffline, broker.StateOnline)
	var got []string
	farmtest.Eventually(t, 15*time.Second, func() bool {
		got = whats(deviceEvents(t, r.stores, node, serial))
		return len(got) >= len(want)
	}, "the device's events")
	// The mirror publishes in the order it was given: the reshows' events, had they been
	// recorded, would be before the last one.
	require.Equal(t, want, got)
}
