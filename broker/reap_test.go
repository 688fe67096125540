package broker

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// getDevice reads a registry entry and its revision.
func getDevice(t *testing.T, s *Stores, serial string) (DeviceEntry, uint64) {
	t.Helper()
	e, err := s.Registry.Get(t.Context(), keyOf(t, s.Registry, serial))
	require.NoError(t, err, serial)
	var d DeviceEntry
	require.NoError(t, json.Unmarshal(e.Value(), &d))
	return d, e.Revision()
}

// keyOf finds the key of serial in a bucket: <node>.<serial>, or the serial alone (an older
// Corral's), "" when there is none.
func keyOf(t *testing.T, kv jetstream.KeyValue, serial string) string {
	t.Helper()
	keys, err := kv.ListKeys(t.Context())
	require.NoError(t, err)
	for k := range keys.Keys() {
		if k == Token(serial) || strings.HasSuffix(k, "."+Token(serial)) {
			return k
		}
	}
	return ""
}

// putLease mirrors a lease into KV as its node would.
func putLease(t *testing.T, s *Stores, l Lease) {
	t.Helper()
	b, err := json.Marshal(l)
	require.NoError(t, err)
	_, err = s.Leases.Put(t.Context(), LeaseKey(l.Node, l.Serial), b)
	require.NoError(t, err)
}

// hasLease says whether the lease KV has an entry for serial.
func hasLease(t *testing.T, s *Stores, serial string) bool {
	t.Helper()
	return keyOf(t, s.Leases, serial) != ""
}

// events counts the event stream's messages on subject.
func events(t *testing.T, s *Stores, subject string) uint64 {
	t.Helper()
	n, err := countEvents(t, s, subject)
	require.NoError(t, err)
	return n
}

// countEvents counts the event stream's messages on subject, for conditions polled off the
// test's goroutine (where require must not be used).
func countEvents(t *testing.T, s *Stores, subject string) (uint64, error) {
	info, err := s.Events.Info(t.Context(), jetstream.WithSubjectFilter(subject))
	if err != nil {
		return 0, err
	}
	return info.State.Subjects[subject], nil
}

// eventsAre says whether subject has n events (false when it cannot tell).
func eventsAre(t *testing.T, s *Stores, subject string, n uint64) bool {
	got, err := countEvents(t, s, subject)
	return err == nil && got == n
}

// lastEvent reads the last event on subject.
func lastEvent(t *testing.T, s *Stores, subject string) Event {
	t.Helper()
	m, err := s.Events.GetLastMsgForSubject(t.Context(), subject)
	require.NoError(t, err, subject)
	var ev Event
	require.NoError(t, json.Unmarshal(m.Data, &ev))
	return ev
}

// metricValue reads a counter or gauge.
func metricValue(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var d dto.Metric
	require.NoError(t, m.Write(&d))
	return d.GetGauge().GetValue() + d.GetCounter().GetValue()
}

func devOffline(node, serial string) string {
	return fmt.Sprintf(EventDevT, node, Token(serial), StateOffline)
}

// waitCached waits until the client's registry cache shows serial in state.
func waitCached(t *testing.T, c *Client, serial, state string) {
	t.Helper()
	require.Eventually(t, func() bool {
		d, ok := c.Device(serial)
		return ok && d.State == state
	}, waitLong, 5*time.Millisecond, "%s never %s in the client's cache", serial, state)
}

// A reaping client marks the lost node's devices offline (keeping their epoch, dropping the
// holder), deletes their leases from KV, records each device's change and the node's loss
// once, and tells the node (which revokes its leases when it hears it). Devices already
// offline and other nodes' devices are left alone.
func TestReapLostNode(t *testing.T) {
	s := openStores(t)
	const wifi = "10.0.0.7:5555"
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateLeased, Holder: "alice (cli)", Epoch: 7, Model: "Pixel 8"})
	putDevice(t, s, DeviceEntry{Serial: wifi, Node: "n1", State: StateOnline, Epoch: 2})
	putDevice(t, s, DeviceEntry{Serial: "d3", Node: "n1", State: StateOffline, Reason: "unplugged"})
	putDevice(t, s, DeviceEntry{Serial: "d4", Node: "n2", State: StateLeased, Holder: "bob", Epoch: 3})
	putLease(t, s, Lease{V: WireVersion, Serial: "d1", Node: "n1", Holder: Holder{Principal: "alice"}, Epoch: 7})
	putLease(t, s, Lease{V: WireVersion, Serial: wifi, Node: "n1", Holder: Holder{Principal: "carol"}, Epoch: 2})
	putLease(t, s, Lease{V: WireVersion, Serial: "d4", Node: "n2", Holder: Holder{Principal: "bob"}, Epoch: 3})
	_, rev3 := getDevice(t, s, "d3")
	_, rev4 := getDevice(t, s, "d4")

	// n1 listens for its loss, as a node does to fence itself.
	nodeConn, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	defer nodeConn.Close()
	told, err := nodeConn.SubscribeSync(fmt.Sprintf(EventNodeT, "n1", "lost"))
	require.NoError(t, err)
	require.NoError(t, nodeConn.Flush())

	metrics := NewClientMetrics(prometheus.NewRegistry())
	c := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour, Metrics: metrics})
	require.Len(t, c.Devices(), 4)
	start := time.Now()
	c.nodeLost("n1", "boot-a")

	for _, serial := range []string{"d1", wifi} {
		d, _ := getDevice(t, s, serial)
		assert.Equal(t, StateOffline, d.State, serial)
		assert.Contains(t, d.Reason, "node n1 lost", serial)
		assert.Empty(t, d.Holder, serial)
		assert.Equal(t, "n1", d.Node, serial)
		assert.False(t, d.Updated.Before(start), "%s: Updated not renewed", serial)
		assert.False(t, hasLease(t, s, serial), "%s: the lost node's lease is still in KV", serial)
		assert.EqualValues(t, 1, events(t, s, devOffline("n1", serial)), "%s: offline event", serial)
		ev := lastEvent(t, s, devOffline("n1", serial))
		assert.Equal(t, Event{V: WireVersion, Kind: "device", Serial: serial, Node: "n1", What: StateOffline,
			Reason: d.Reason, Epoch: d.Epoch, At: ev.At}, ev, serial)
	}
	d1, rev1 := getDevice(t, s, "d1")
	assert.EqualValues(t, 7, d1.Epoch, "the epoch fences the old holder: it must not change")
	assert.Equal(t, "Pixel 8", d1.Model)

	// Left alone: a device already offline, and another node's device and lease.
	d3, r := getDevice(t, s, "d3")
	assert.Equal(t, rev3, r, "an offline device was rewritten")
	assert.Equal(t, "unplugged", d3.Reason)
	assert.Zero(t, events(t, s, devOffline("n1", "d3")))
	_, r = getDevice(t, s, "d4")
	assert.Equal(t, rev4, r, "another node's device was touched")
	assert.True(t, hasLease(t, s, "d4"), "another node's lease was deleted")
	assert.Zero(t, events(t, s, devOffline("n2", "d4")))

	// The node's loss: recorded, told to the node, counted.
	lostSubject := fmt.Sprintf(EventNodeT, "n1", "lost")
	assert.EqualValues(t, 1, events(t, s, lostSubject))
	ev := lastEvent(t, s, lostSubject)
	assert.Equal(t, "node", ev.Kind)
	assert.Equal(t, "n1", ev.Node)
	assert.Equal(t, "lost", ev.What)
	assert.Contains(t, ev.Reason, "no heartbeat for 1h0m0s")
	_, err = told.NextMsg(waitLong)
	assert.NoError(t, err, "the node was not told it is lost")
	assert.EqualValues(t, 1, metricValue(t, metrics.lost.WithLabelValues("n1")))
	assert.EqualValues(t, 0, metricValue(t, metrics.up.WithLabelValues("n1")))

	// Every gateway reaps: a second one, and this one again, change nothing more and record
	// nothing twice.
	c2 := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour})
	waitCached(t, c, "d1", StateOffline)
	waitCached(t, c, wifi, StateOffline)
	waitCached(t, c2, "d1", StateOffline)
	waitCached(t, c2, wifi, StateOffline)
	c2.nodeLost("n1", "boot-a")
	c.nodeLost("n1", "boot-a")
	_, r = getDevice(t, s, "d1")
	assert.Equal(t, rev1, r, "a device reaped already was written again")
	assert.EqualValues(t, 1, events(t, s, devOffline("n1", "d1")))
	assert.EqualValues(t, 1, events(t, s, lostSubject), "the same loss recorded twice")
}

// The reaper writes with the revision it saw: a node that is back and wrote its device again
// meanwhile wins, and no offline event is recorded for it.
func TestReapNodeBackWins(t *testing.T) {
	s := openStores(t)
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateLeased, Holder: "alice", Epoch: 4})
	c := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour})
	seen, ok := c.Device("d1")
	require.True(t, ok)
	key := RegistryKey("n1", "d1")
	c.mu.RLock()
	stale := c.devices[key]
	c.mu.RUnlock()

	// n1 is back and writes d1 again before this gateway's watch has shown it.
	rev := putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline, Epoch: 4})
	require.Eventually(t, func() bool {
		c.mu.RLock()
		defer c.mu.RUnlock()
		return c.devices[key].revision == rev
	}, waitLong, 5*time.Millisecond)
	c.mu.Lock()
	c.devices[key] = stale
	c.mu.Unlock()
	require.Equal(t, StateLeased, seen.State)

	c.nodeLost("n1", "boot-a")
	d, r := getDevice(t, s, "d1")
	assert.Equal(t, rev, r, "the reaper overwrote the node's newer entry")
	assert.Equal(t, StateOnline, d.State)
	assert.Zero(t, events(t, s, devOffline("n1", "d1")), "an offline event for a device that is not offline")
}

// A client that does not reap (the CLI) counts the loss and changes nothing.
func TestReapNotByNonReapingClient(t *testing.T) {
	s := openStores(t)
	rev := putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateLeased, Holder: "alice", Epoch: 4})
	putLease(t, s, Lease{V: WireVersion, Serial: "d1", Node: "n1", Holder: Holder{Principal: "alice"}, Epoch: 4})
	metrics := NewClientMetrics(prometheus.NewRegistry())
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour, Metrics: metrics})
	waitCached(t, c, "d1", StateLeased)

	c.nodeLost("n1", "boot-a")
	_, r := getDevice(t, s, "d1")
	assert.Equal(t, rev, r, "a non-reaping client wrote the registry")
	assert.True(t, hasLease(t, s, "d1"), "a non-reaping client deleted a lease")
	assert.Zero(t, events(t, s, devOffline("n1", "d1")))
	assert.Zero(t, events(t, s, fmt.Sprintf(EventNodeT, "n1", "lost")))
	assert.EqualValues(t, 1, metricValue(t, metrics.lost.WithLabelValues("n1")))
}

// End to end: a node whose heartbeats stop is reaped once; when it comes back and registers
// its device again, it is not reaped while it beats; silent again, it is reaped again.
func TestReapOnSilenceOnceUntilBack(t *testing.T) {
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateLeased, Holder: "alice", Epoch: 4})
	putLease(t, s, Lease{V: WireVersion, Serial: "d1", Node: "n1", Holder: Holder{Principal: "alice"}, Epoch: 4})
	c := startClient(t, s, ClientOptions{Reap: true, LostAfter: testLostAfter})
	lostSubject := fmt.Sprintf(EventNodeT, "n1", "lost")

	n1.stopBeats()
	require.Eventually(t, func() bool { return eventsAre(t, s, lostSubject, 1) }, waitLong, 10*time.Millisecond,
		"the silent node's loss not recorded")
	d, _ := getDevice(t, s, "d1")
	assert.Equal(t, StateOffline, d.State)
	assert.False(t, hasLease(t, s, "d1"))
	waitCached(t, c, "d1", StateOffline)
	res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: "tap_xy"}, nil)
	require.NoError(t, err)
	assert.Equal(t, CodeOffline, res.Code, "a reaped device not refused as offline")

	// Back: a restart beats with a new boot and attaches its device again.
	n1.startBeats("boot-2")
	rev := putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline, Epoch: 4})
	require.Eventually(t, func() bool { return len(c.Nodes()) == 1 }, waitLong, 10*time.Millisecond)
	waitCached(t, c, "d1", StateOnline)
	res, err = c.Run(call(t), TaskRequest{V: WireVersion, ID: NewTaskID(), Serial: "d1", Tool: "tap_xy"}, nil)
	require.NoError(t, err)
	assert.Equal(t, OutcomeSucceeded, res.Outcome)
	// Not reaped while it beats: watch for more than a loss would take. (Waiting for something
	// not to happen cannot end on a condition; this wait is bounded.)
	assert.Never(t, func() bool {
		e, err := s.Registry.Get(t.Context(), RegistryKey("n1", "d1"))
		n, err2 := countEvents(t, s, lostSubject)
		return err == nil && e.Revision() != rev || err2 == nil && n != 1
	}, 2*testLostAfter, 50*time.Millisecond, "a node that came back was reaped again")

	// Silent again: reaped again, recorded under its new boot.
	n1.stopBeats()
	require.Eventually(t, func() bool { return eventsAre(t, s, lostSubject, 2) }, waitLong, 10*time.Millisecond,
		"the second loss not recorded")
	d, _ = getDevice(t, s, "d1")
	assert.Equal(t, StateOffline, d.State)
	assert.EqualValues(t, 2, events(t, s, devOffline("n1", "d1")))
}
