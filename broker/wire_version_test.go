package broker

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// newerLines returns the messages of the warnings about payloads of wire version 2 that say to
// upgrade the gateway.
func newerLines(logs *logtest.Recorder) []string {
	var out []string
	for _, r := range logs.Records() {
		v := 0
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "version" {
				v = int(a.Value.Int64())
			}
			return true
		})
		if r.Level == slog.LevelWarn && v == 2 && strings.Contains(r.Message, "upgrade the gateway") {
			out = append(out, r.Message)
		}
	}
	return out
}

// A registry entry of a newer wire version ("v":2, as `nats kv put` or a newer node writes it)
// is not a device to this gateway: not listed, not found, and what an older entry under its key
// said is forgotten. The gateway says so once per node and version (docs/operations.md), however
// many entries it has and however often they are delivered again. Before, it was listed as a
// normal online device.
func TestRegistryEntryOfANewerWireVersionIsSkipped(t *testing.T) {
	s := openStores(t)
	var logs logtest.Recorder
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour, Log: slog.New(&logs)})
	putDevice(t, s, DeviceEntry{Serial: "future-02", Node: "n-new", State: StateOnline})
	require.Eventually(t, func() bool { _, ok := c.Device("future-02"); return ok }, waitLong, 5*time.Millisecond, "future-02 listed")

	for range 2 {
		for _, serial := range []string{"future-01", "future-02"} {
			_, err := s.Registry.Put(t.Context(), RegistryKey("n-new", serial),
				fmt.Appendf(nil, `{"v":2,"serial":%q,"platform":"android","node":"n-new","state":"online","shape":"new"}`, serial))
			require.NoError(t, err)
		}
	}
	putDevice(t, s, DeviceEntry{Serial: "marker", Node: "n1", State: StateOnline}) // after them: they were applied
	require.Eventually(t, func() bool { _, ok := c.Device("marker"); return ok }, waitLong, 5*time.Millisecond, "marker listed")
	for _, serial := range []string{"future-01", "future-02"} {
		_, ok := c.Device(serial)
		assert.False(t, ok, "%s, of wire version 2, is a device", serial)
	}
	require.Len(t, c.Devices(), 1, "devices listed: %v", c.Devices())
	assert.Len(t, newerLines(&logs), 1, "one line for the node of two entries of a newer version, each delivered twice: %v", newerLines(&logs))
}

// startNewerNode plays a node of a newer Corral: it beats, and answers every request in wire
// version 2. Package nodes cannot be used here (it imports this one), nor run a newer version.
func startNewerNode(t *testing.T, s *Stores, name string) {
	t.Helper()
	nc, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	_, err = nc.Subscribe(fmt.Sprintf(NodeGroupT, name)+".*", func(m *nats.Msg) {
		// Its leases field is a list, as in a leases answer, where a drain answer of this
		// version has a count: a newer version may change a field's type.
		_ = m.Respond(fmt.Appendf(nil, `{"v":2,"ok":true,"id":"t1","node":%q,"outcome":"succeeded","leases":[],"aborted":[],"shape":"new"}`, name))
	})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	beat := func() {
		b, _ := json.Marshal(Heartbeat{V: WireVersion, Node: name, Boot: "boot-1", Sent: time.Now()})
		_ = nc.Publish(fmt.Sprintf(HeartbeatT, name), b)
	}
	beat()
	go func() {
		tick := time.NewTicker(testBeat)
		defer tick.Stop()
		for {
			select {
			case <-t.Context().Done():
				return
			case <-tick.C:
				beat()
			}
		}
	}()
}

// A node's answers of a newer wire version are refused, each call saying to upgrade the
// gateway, and the gateway logs it once for the node: a task's result, an acquire's and a
// release's answer, an abort's, a leases list's, a drain's. Before, they were taken as this
// version's.
func TestAnswersOfANewerWireVersionAreRefused(t *testing.T) {
	s := openStores(t)
	var logs logtest.Recorder
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour, Log: slog.New(&logs)})
	startNewerNode(t, s, "n-new")
	putDevice(t, s, DeviceEntry{Serial: "s1", Node: "n-new", State: StateOnline})
	require.Eventually(t, func() bool { return len(c.Nodes()) == 1 }, waitLong, 5*time.Millisecond, "n-new alive")
	require.Eventually(t, func() bool { _, ok := c.Device("s1"); return ok }, waitLong, 5*time.Millisecond, "s1 listed")

	refused := func(what string, err error) {
		t.Helper()
		require.Error(t, err, "%s: an answer of wire version 2 was taken", what)
		assert.Contains(t, err.Error(), "wire version 2", what)
		assert.Contains(t, err.Error(), "upgrade the gateway", what)
	}
	res, err := c.Run(call(t), TaskRequest{V: WireVersion, ID: "t1", Serial: "s1", Tool: "screenshot"}, nil)
	refused("task", err)
	assert.True(t, errors.Is(err, ErrNewerWire), "task: %v", err)
	assert.Empty(t, res.Outcome, "the refused answer's outcome was kept")
	_, err = c.Acquire(call(t), AcquireRequest{V: WireVersion, Serial: "s1", Holder: Holder{Principal: "alice"}})
	refused("acquire", err)
	_, err = c.Release(call(t), ReleaseRequest{V: WireVersion, Serial: "s1", Force: true})
	refused("release", err)
	_, err = c.Abort(call(t), AbortRequest{V: WireVersion, Serial: "s1"})
	refused("abort", err)
	_, err = c.Leases(call(t))
	refused("leases", err)
	_, err = DrainNode(call(t), s.JS.Conn(), "n-new", DrainRequest{Action: DrainStatus})
	refused("drain", err)
	assert.Len(t, newerLines(&logs), 1, "one line for the node: %v", newerLines(&logs))
}

// Task records and lease events of a newer wire version are not read as this version's: a
// task's record is refused (get_task_result says to upgrade the gateway), task history and
// a lost answer's record lookup skip it, and a lease's end is found in an event this version
// reads. Each logs a line naming the version and saying to upgrade the gateway.
func TestRecordsAndEventsOfANewerWireVersionAreSkipped(t *testing.T) {
	s := openStores(t)
	var logs logtest.Recorder
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour, Log: slog.New(&logs)})
	publish := func(subject, data string) {
		t.Helper()
		_, err := s.JS.Publish(t.Context(), subject, []byte(data))
		require.NoError(t, err)
	}
	newer := fmt.Sprintf(EventTaskT, "n-new", "t-new")
	publish(newer, `{"v":2,"id":"t-new","serial":"s1","node":"n-new","tool":"tap","outcome":"succeeded","finished":"2026-01-01T00:00:00Z"}`)
	publish(fmt.Sprintf(EventTaskT, "n1", "t-old"), `{"v":1,"id":"t-old","serial":"s1","node":"n1","tool":"tap","outcome":"succeeded","finished":"2026-01-01T00:00:00Z"}`)

	m, err := s.Events.GetLastMsgForSubject(call(t), newer)
	require.NoError(t, err)
	_, ok := c.readRecord(m.Subject, m.Data)
	assert.False(t, ok, "a lost answer's record of wire version 2 was read")

	_, err = c.TaskRecord(call(t), "t-new")
	require.Error(t, err, "a task record of wire version 2 was read")
	assert.True(t, errors.Is(err, ErrNewerWire), "%v", err)
	assert.Contains(t, err.Error(), "upgrade the gateway")
	r, err := c.TaskRecord(call(t), "t-old")
	require.NoError(t, err)
	assert.Equal(t, "t-old", r.ID)

	h, err := c.TaskHistory(call(t), HistoryQuery{})
	require.NoError(t, err)
	require.Len(t, h.Tasks, 1, "task history: %+v", h.Tasks)
	assert.Equal(t, "t-old", h.Tasks[0].ID)

	publish(fmt.Sprintf(EventLeaseT, "n1", Token("s1"), "released"), `{"v":1,"kind":"lease","serial":"s1","node":"n1","what":"released","epoch":5}`)
	publish(fmt.Sprintf(EventLeaseT, "n1", Token("s1"), "expired"), `{"v":2,"kind":"lease","serial":"s1","node":"n1","what":"expired","epoch":5}`)
	ev, ok := c.LeaseEnd(call(t), "n1", "s1", 5)
	require.True(t, ok)
	assert.Equal(t, "released", ev.What, "the lease's end was read from an event of wire version 2")

	lines := newerLines(&logs)
	// The record refused by TaskRecord is of the node whose record was skipped: logged once.
	for _, want := range []string{"a task record of a newer wire version skipped", "task records of a newer wire version skipped",
		"a lease event of a newer wire version skipped"} {
		assert.True(t, slicesContainsPrefix(lines, want), "no line %q among %v", want, lines)
	}
}

func slicesContainsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
