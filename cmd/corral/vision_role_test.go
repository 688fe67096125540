//go:build vision

package main

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

// corral vision with the admin's context (corral up's banner exports it as NATS_CONTEXT) exits
// with an error that names the subject NATS refused and the vision context to use, instead of
// logging "vision worker ready" and serving nothing; with the vision context it serves.
func TestVisionWithAnotherRolesContextExits(t *testing.T) {
	secrets, err := broker.OpenSecrets(t.TempDir())
	require.NoError(t, err)
	users, err := broker.FarmUsers([]string{"n1"}, secrets.Password)
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
	contexts, err := secrets.WriteContexts(ns.ClientURL(), "", users)
	require.NoError(t, err)
	args := func(user string) []string {
		return []string{"--nats-context", contexts[user], "--metrics", "", "--parallel", "1", "--log-level", "error"}
	}

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	err = runVision(ctx, args(broker.UserName(broker.RoleAdmin, "")))
	require.Error(t, err, "corral vision ran as the admin")
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "corral vision ran as the admin until the test's deadline")
	assert.Contains(t, err.Error(), `NATS refused this worker's subscription to "`)
	assert.Contains(t, err.Error(), "--nats-context DATA/nats/vision.json")

	done := make(chan error, 1)
	go func() { done <- runVision(ctx, args(broker.UserName(broker.RoleVision, ""))) }()
	nc, err := nats.Connect(ns.ClientURL(), nats.UserInfo("node-n1", mustPassword(t, secrets, "node-n1")),
		nats.CustomInboxPrefix(broker.InboxPrefix("node-n1")))
	require.NoError(t, err)
	defer nc.Close()
	client := vision.NewClient(nc, 10*time.Second)
	// The engine loads Tesseract first: a minute on a loaded machine.
	require.Eventually(t, func() bool {
		select {
		case err := <-done:
			t.Fatalf("corral vision as the vision user ended: %v", err)
		default:
		}
		return client.Ping(ctx) == nil
	}, time.Minute, 20*time.Millisecond, "corral vision as the vision user never answered a ping")
	cancel()
	require.NoError(t, <-done)
}

func mustPassword(t *testing.T, s *broker.Secrets, user string) string {
	t.Helper()
	pw, err := s.Password(user)
	require.NoError(t, err)
	return pw
}
