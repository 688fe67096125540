package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// An operator's acquire_device (corral call with the operator's context) is refused by NATS
// before it leaves: no node saw it, so no lease can exist. Acquire fails with the refusal and
// withdraws nothing: it used to take the ended context for a caller who went away, send a
// release (refused too), wait 2 s for it and warn that a lease might be left to its expiry.
func TestAcquireRefusedByNATSWithdrawsNothing(t *testing.T) {
	op, err := PermissionsFor(RoleOperator, "")
	require.NoError(t, err)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: []embedded.User{
		{Name: "root", Password: "pw", Permissions: embedded.Permissions{PublishAllow: []string{">"}, SubscribeAllow: []string{">"}, AllowResponses: true}},
		{Name: "operator", Password: "pw", Permissions: embedded.Permissions(op)},
	}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })

	// The farm, as root: the stores, a device on n1, and n1 beating and counting what reaches it.
	root, err := nats.Connect(ns.ClientURL(), nats.UserInfo("root", "pw"))
	require.NoError(t, err)
	t.Cleanup(root.Close)
	s, err := EnsureStores(t.Context(), root, StoreOptions{})
	require.NoError(t, err)
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline})
	var reached atomic.Int32
	_, err = root.Subscribe(fmt.Sprintf(NodeGroupT, "n1")+".*", func(*nats.Msg) { reached.Add(1) })
	require.NoError(t, err)
	beat := func() {
		b, _ := json.Marshal(Heartbeat{V: WireVersion, Node: "n1", Boot: "boot-1", Sent: time.Now()})
		require.NoError(t, root.Publish(fmt.Sprintf(HeartbeatT, "n1"), b))
	}

	// The operator, as the command line connects: refusals end its context.
	var logged logtest.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	r := NewRefusals()
	pwFile := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pwFile, []byte("pw"), 0o600))
	nc, err := Connect(ConnectOptions{URL: ns.ClientURL(), User: "operator", PasswordFile: pwFile, Refusals: r}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	deadline, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	ctx, stop := r.Watch(deadline)
	defer stop()
	opStores, err := EnsureStores(ctx, nc, StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	c, err := NewClient(ctx, nc, opStores, ClientOptions{Log: log})
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(ctx))
	require.Eventually(t, func() bool { beat(); return slices.Contains(c.Nodes(), "n1") }, waitLong, 20*time.Millisecond, "n1 alive")
	require.Nil(t, r.Refused(), "refused before the acquire")

	_, err = c.Acquire(ctx, AcquireRequest{V: WireVersion, Serial: "d1", Holder: Holder{Principal: "op"}})
	require.Error(t, err)
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, "corral.v1.node.n1.acquire", refused.Subject)
	assert.Contains(t, err.Error(), "node requests need the admin or gateway role")
	assert.NoError(t, deadline.Err(), "the acquire waited for its deadline")
	assert.NotContains(t, logged.String(), "could not be withdrawn", "a request that never left was withdrawn")
	assert.NotContains(t, logged.String(), ".release", "a release was sent for it")
	assert.Zero(t, reached.Load(), "a refused request reached the node")
}
