package nodes

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/logtest"
)

// fillEvents makes the event stream refuse new messages (full: it keeps what it has, as a
// stream on a full disk takes nothing) or take them again.
func fillEvents(t *testing.T, stores *broker.Stores, full bool) {
	t.Helper()
	info, err := stores.Events.Info(t.Context())
	require.NoError(t, err)
	cfg := info.Config
	cfg.Discard, cfg.MaxMsgs = jetstream.DiscardNew, -1
	if full {
		cfg.MaxMsgs = max(int64(info.State.Msgs), 1)
	}
	_, err = stores.JS.UpdateStream(t.Context(), cfg)
	require.NoError(t, err)
}

// While the stores take no writes, the mirror counts its failed and dropped writes, says so in
// one ERROR line with what to do (not a line a flush or a record), fails the node's readiness,
// and says once when writes work again, when the node is ready again.
func TestMirrorToldStoresTakeNoWrites(t *testing.T) {
	ctx, stores, _ := mirrorStores(t)
	logs := &logtest.Buffer{}
	m := newNATSMirror(stores, "n1", slog.New(slog.NewTextHandler(logs, nil)))
	m.health.downAfter = time.Nanosecond // told at the second failed flush
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.health)
	count := func(s string) int { return strings.Count(logs.String(), s) }
	rec := func(id string) broker.TaskResult {
		return broker.TaskResult{V: broker.WireVersion, ID: id, Serial: "p1", Node: "n1", Tool: "home", Outcome: broker.OutcomeSucceeded}
	}
	m.Event(broker.Event{V: broker.WireVersion, Kind: "node", Node: "n1", What: "up", At: time.Now()})
	_, failed := m.flush(ctx, false)
	require.False(t, failed)

	fillEvents(t, stores, true)
	m.TaskRecord(rec("t_kept"))
	for tries := 1; tries <= maxTries; tries++ {
		_, failed = m.flush(ctx, false)
		require.Equal(t, tries < maxTries, failed, "try %d: a record retried after its last try, or written to a full stream", tries)
	}
	assert.Equal(t, 1, count("the NATS stores take no writes"), logs.String())
	assert.Contains(t, logs.String(), "df")
	assert.Equal(t, 1, count("dropped"+" (counted"), "the dropped record is told once:\n%s", logs)
	assert.LessOrEqual(t, count("level=WARN")+count("level=ERROR"), 3, "a line a flush:\n%s", logs)
	assert.ErrorContains(t, m.health.ready(), "the stores take no writes")
	assert.GreaterOrEqual(t, gathered(t, reg, "corral_node_store_writes_failed_total"), float64(maxTries-1))
	assert.Equal(t, 1.0, gathered(t, reg, "corral_node_store_writes_dropped_total"))

	fillEvents(t, stores, false)
	m.TaskRecord(rec("t_after"))
	_, failed = m.flush(ctx, false)
	require.False(t, failed)
	assert.Equal(t, 1, count("NATS writes work again"), logs.String())
	assert.NoError(t, m.health.ready())
}

// gathered is the value of the one series of counter name in reg.
func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// QA's U2: a node whose link to NATS is cut cannot write either, and said to check the NATS
// server's disk. While its own round trips go unanswered (silence.go) it says its link does
// not answer, in the outage's line, its reminder and its readiness.
func TestStoresOfASilentNodeBlameItsLink(t *testing.T) {
	ctx, stores, _ := mirrorStores(t)
	logs := &logtest.Buffer{}
	m := newNATSMirror(stores, "n1", slog.New(slog.NewTextHandler(logs, nil)))
	m.health.downAfter, m.health.remindGap = time.Nanosecond, time.Nanosecond
	m.health.linkSilent = func() bool { return true }
	m.Event(broker.Event{V: broker.WireVersion, Kind: "node", Node: "n1", What: "up", At: time.Now()})
	_, failed := m.flush(ctx, false)
	require.False(t, failed)
	fillEvents(t, stores, true) // a write that fails, as a cut link's would
	m.TaskRecord(broker.TaskResult{V: broker.WireVersion, ID: "t_kept", Serial: "p1", Node: "n1", Tool: "home", Outcome: broker.OutcomeSucceeded})
	for range 3 { // failing, told, reminded
		_, failed = m.flush(ctx, false)
		require.True(t, failed)
	}
	require.NotEmpty(t, logs.Line("the NATS stores take no writes"), logs.String())
	assert.Contains(t, logs.Line("the NATS stores take no writes"), "link to the NATS server does not answer")
	assert.Contains(t, logs.Line("still take no writes"), silentLinkShort)
	assert.NotContains(t, logs.String(), "df", "a silent node blames the server's disk")
	assert.ErrorContains(t, m.health.ready(), silentLinkShort)
}
