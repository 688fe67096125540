package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// A lease's renewals (only its expiry moves, on every call of its holder) wait for the
// registry's turn; grants (a new epoch) and releases go out at once, a renewal queued behind
// them with them.
func TestMirrorDefersLeaseRenewals(t *testing.T) {
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
