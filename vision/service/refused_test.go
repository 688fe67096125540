package service

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/vision"
)

// A worker whose NATS user may not serve vision requests (the admin's context, which corral up's
// banner offers) fails to start, naming the refused subject, rather than log that it serves and
// answer nothing; the vision user's worker serves. QA: 'vision worker ready', then 14 refusals,
// and peek answered vision_unavailable.
func TestWorkerOfAUserThatMayNotServeFailsToStart(t *testing.T) {
	users, err := broker.FarmUsers([]string{"n1"}, func(name string) (string, error) { return "pw-" + name, nil })
	require.NoError(t, err)
	var serverUsers []embedded.User
	for _, u := range users {
		p, err := u.Permissions()
		require.NoError(t, err)
		serverUsers = append(serverUsers, embedded.User{Name: u.Name, Password: u.Password, Permissions: embedded.Permissions(p)})
	}
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: serverUsers}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	connect := func(user string) *nats.Conn {
		nc, err := nats.Connect(ns.ClientURL(), nats.UserInfo(user, "pw-"+user), nats.CustomInboxPrefix(broker.InboxPrefix(user)),
			nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		return nc
	}

	for _, user := range []string{broker.UserName(broker.RoleAdmin, ""), broker.UserName(broker.RoleGateway, ""), broker.UserName(broker.RoleNode, "n1")} {
		_, err := Start(connect(user), Options{Engine: newGate(), Parallel: 1})
		require.Error(t, err, "a worker of the %s user started", user)
		assert.ErrorIs(t, err, nats.ErrPermissionViolation, user)
		assert.Contains(t, err.Error(), `NATS refused this worker's subscription to "`, user)
		assert.Contains(t, err.Error(), "connect as the vision role's user", user)
	}

	// The vision user's worker serves a node's request.
	g := newGate()
	close(g.release)
	startWorker(t, connect(broker.UserName(broker.RoleVision, "")), Options{Engine: g, Parallel: 1})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	res, err := vision.NewClient(connect(broker.UserName(broker.RoleNode, "n1")), 20*time.Second).
		OCR(ctx, vision.OCRRequest{V: vision.WireVersion, Image: []byte("png")})
	require.NoError(t, err)
	assert.Equal(t, vision.WireVersion, res.V)
}
