package broker

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node's user publishes its own node events but not its own forgotten one, which would
// clear its CorralNodeLost on gateways while it is connected but not beating; an admin (corral
// devices forget) still may.
func TestNodeUserCannotRecordItselfForgotten(t *testing.T) {
	f := startNodeUsersNATS(t)
	ctx := t.Context()
	_, err := EnsureStores(ctx, f.connect("gateway", slog.New(slog.DiscardHandler)), StoreOptions{})
	require.NoError(t, err)

	refused := make(chan error, 4)
	nc, err := nats.Connect(f.ns.ClientURL(), nats.UserInfo(UserName(RoleNode, "nA"), "pw"), nats.CustomInboxPrefix(InboxPrefix(UserName(RoleNode, "nA"))),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { refused <- err }))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)

	_, err = js.Publish(ctx, fmt.Sprintf(EventNodeT, "nA", "draining"), []byte(`{"v":1}`))
	require.NoError(t, err, "a node's own node event")

	forgotten := fmt.Sprintf(EventNodeT, "nA", NodeForgotten)
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = js.Publish(short, forgotten, []byte(`{"v":1}`))
	assert.Error(t, err, "a node's publish of its own forgotten event was stored")
	select {
	case err := <-refused:
		assert.ErrorIs(t, err, nats.ErrPermissionViolation)
		assert.True(t, strings.Contains(err.Error(), forgotten), "the refusal names another subject: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not refuse a node's publish of its own forgotten event")
	}

	admin, err := PermissionsFor(RoleAdmin, "")
	require.NoError(t, err)
	assert.True(t, permits(admin.PublishAllow, admin.PublishDeny, forgotten), "an admin may record a node forgotten")
}
