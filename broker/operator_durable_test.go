package broker

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// The operator may create a durable consumer on a stream it reads (QA T: its CONSUMER.CREATE
// cannot tell durable from ephemeral, and `corral devices` needs it). nats-server never drops
// it (no inactive threshold) and the operator may not delete it; an admin lists it and removes
// it, as docs/operations.md says.
func TestOperatorDurableStaysUntilAnAdminRemovesIt(t *testing.T) {
	var users []embedded.User
	for _, r := range []Role{RoleGateway, RoleOperator, RoleAdmin} {
		p, err := PermissionsFor(r, "")
		require.NoError(t, err)
		users = append(users, embedded.User{Name: UserName(r, ""), Password: "pw", Permissions: embedded.Permissions(p)})
	}
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: users}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	pw := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pw, []byte("pw"), 0o600))
	connect := func(user string) *nats.Conn {
		nc, err := Connect(ConnectOptions{URL: ns.ClientURL(), User: user, PasswordFile: pw}, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return nc
	}
	ctx := t.Context()
	_, err = EnsureStores(ctx, connect("gateway"), StoreOptions{})
	require.NoError(t, err)
	stream := kvStream(RegistryBucket)

	// QA T's repro: the operator makes a durable, then goes.
	op := connect("operator")
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	m, err := op.RequestWithContext(rctx, jsAPI+"CONSUMER.CREATE."+stream+".dur1",
		[]byte(`{"stream_name":"`+stream+`","config":{"durable_name":"dur1","ack_policy":"explicit","deliver_policy":"all"},"action":"create"}`))
	require.NoError(t, err)
	require.NotContains(t, string(m.Data), `"error"`, "the operator's durable")
	dctx, stop := watchRefusalOf(ctx, op, func(string) bool { return true })
	_, _ = op.RequestWithContext(dctx, jsAPI+"CONSUMER.DELETE."+stream+".dur1", nil)
	var refused *RefusedError
	assert.ErrorAs(t, context.Cause(dctx), &refused, "the operator deletes no consumer, its own durable neither")
	stop()
	op.Close()

	admin, err := jetstream.New(connect("admin"))
	require.NoError(t, err)
	st, err := admin.Stream(ctx, stream)
	require.NoError(t, err)
	c, err := st.Consumer(ctx, "dur1")
	require.NoError(t, err, "the durable outlives the operator's connection")
	assert.Zero(t, c.CachedInfo().Config.InactiveThreshold, "no inactive threshold: nats-server never drops it")

	// `nats consumer ls` and `nats consumer rm` as the admin.
	var names []string
	for n := range st.ConsumerNames(ctx).Name() {
		names = append(names, n)
	}
	assert.True(t, slices.Contains(names, "dur1"), "the admin lists it: %v", names)
	require.NoError(t, st.DeleteConsumer(ctx, "dur1"), "the admin removes it")
	_, err = st.Consumer(ctx, "dur1")
	assert.ErrorIs(t, err, jetstream.ErrConsumerNotFound)
}
