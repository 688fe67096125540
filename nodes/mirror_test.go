package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A lease's renewals (only its expiry moves, on every call of its holder) wait for the
// registry's turn; grants (a new epoch) and releases go out at once, a renewal queued behind
// them with them.
func TestMirrorDefersLeaseRenewals(t *testing.T) {
	ctx, stores, log := mirrorStores(t)

	const serial = "p1"
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	lease := func(epoch uint64, expires time.Duration) *broker.Lease {
		return &broker.Lease{V: broker.WireVersion, Handle: "h", Serial: serial, Node: "n1", Epoch: epoch, ExpiresAt: t0.Add(expires)}
	}
	mirrored := func() (epoch uint64, expires time.Duration, ok bool) {
		e, err := stores.Leases.Get(ctx, broker.LeaseKey("n1", serial))
		if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			return 0, 0, false
		}
		require.NoError(t, err)
		var l broker.Lease
		require.NoError(t, json.Unmarshal(e.Value(), &l))
		return l.Epoch, l.ExpiresAt.Sub(t0), true
	}
	m := newNATSMirror(stores, "n1", log)
	step := func(withRegistry bool, wantEpoch uint64, wantExpires time.Duration, wantPending bool) {
		t.Helper()
		pending, failed := m.flush(ctx, withRegistry)
		require.False(t, failed)
		assert.Equal(t, wantPending, pending, "pending")
		epoch, expires, ok := mirrored()
		require.True(t, ok, "no lease mirrored")
		assert.Equal(t, wantEpoch, epoch, "epoch")
		assert.Equal(t, wantExpires, expires, "expiry")
	}

	m.Lease(serial, lease(1, time.Minute))
	step(false, 1, time.Minute, false) // a grant: at once
	m.Lease(serial, lease(1, 2*time.Minute))
	step(false, 1, time.Minute, true)        // a renewal waits…
	step(true, 1, 2*time.Minute, false)      // …for the registry's turn
	m.Lease(serial, lease(2, 3*time.Minute)) // a new epoch: at once
	m.Lease(serial, lease(2, 4*time.Minute)) // renewed before it went out
	step(false, 2, 4*time.Minute, false)

	m.Lease(serial, lease(2, 5*time.Minute))
	m.Lease(serial, nil) // released: at once, the renewal with it
	_, _ = m.flush(ctx, false)
	_, _, ok := mirrored()
	assert.False(t, ok, "a released lease is still mirrored")
	m.Lease(serial, lease(2, 6*time.Minute)) // the same epoch after a delete is written anew
	step(false, 2, 6*time.Minute, false)
}

// A task record's subject is its own: its write carries no dedupe id, and a retry (its first
// try's acknowledgement lost) asks for an empty subject, so a record the stream has already is
// taken as written, not written twice nor retried forever.
func TestMirrorRetriesRecordsOnce(t *testing.T) {
	ctx, stores, log := mirrorStores(t)
	m := newNATSMirror(stores, "n1", log)
	rec := func(id string) broker.TaskResult {
		return broker.TaskResult{V: broker.WireVersion, ID: id, Serial: "p1", Node: "n1", Tool: "home", Outcome: broker.OutcomeSucceeded}
	}
	count := func(subject string) uint64 {
		info, err := stores.Events.Info(ctx, jetstream.WithSubjectFilter(subject))
		require.NoError(t, err)
		return info.State.Subjects[subject]
	}
	record := func(id string) string { return fmt.Sprintf(broker.EventTaskT, "n1", id) }

	m.TaskRecord(rec("t_first"))
	_, failed := m.flush(ctx, false)
	require.False(t, failed)
	msg, err := stores.Events.GetLastMsgForSubject(ctx, record("t_first"))
	require.NoError(t, err)
	assert.Empty(t, msg.Header.Get(jetstream.MsgIDHeader), "a record carries a dedupe id")

	// The same record again, as a retry would send it: the stream has it, so it is written.
	m.queue(publication{subject: record("t_first"), v: rec("t_first"), own: true, tries: 1})
	_, failed = m.flush(ctx, false)
	assert.False(t, failed, "a retried record the stream has already is taken as failed")
	assert.Equal(t, uint64(1), count(record("t_first")), "the record is stored twice")

	// A retry whose first try never arrived is written.
	m.queue(publication{subject: record("t_lost"), v: rec("t_lost"), own: true, tries: 1})
	_, failed = m.flush(ctx, false)
	assert.False(t, failed)
	assert.Equal(t, uint64(1), count(record("t_lost")))

	// Other events keep their dedupe ids: a retry of one the stream has is dropped by it.
	ev := broker.Event{V: broker.WireVersion, Kind: "device", Serial: "p1", Node: "n1", What: "online", Epoch: 1}
	m.Event(ev)
	m.Event(ev)
	_, failed = m.flush(ctx, false)
	assert.False(t, failed)
	assert.Equal(t, uint64(1), count(fmt.Sprintf(broker.EventDevT, "n1", "p1", "online")), "an event written twice")
}

func mirrorStores(t *testing.T) (context.Context, *broker.Stores, *slog.Logger) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "test"}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	ctx := context.Background()
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{})
	require.NoError(t, err)
	return ctx, stores, log
}

// startLogged starts node n1 on stores, its log kept for the test to read.
func startLogged(t *testing.T, ctx context.Context, stores *broker.Stores) (*Node, *logtest.Recorder) {
	t.Helper()
	logs := &logtest.Recorder{}
	n, err := Start(ctx, Config{ID: "n1", NC: stores.JS.Conn(), Stores: stores, Metrics: actors.NewMetrics(prometheus.NewRegistry()),
		Log: slog.New(logs)})
	require.NoError(t, err)
	t.Cleanup(n.Stop)
	return n, logs
}
