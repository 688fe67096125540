package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// corral nats-auth writes a configuration nats-server reads, with each role's permissions,
// and reuses its passwords when run again.
func TestNATSAuthWritesAServerConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	args := []string{"--dir", dir, "--node", "n1", "--node", "n2", "--url", "nats://nats:4222"}
	require.NoError(t, runNATSAuth(t.Context(), args))
	first, err := os.ReadFile(filepath.Join(dir, "users.json"))
	require.NoError(t, err)
	require.NoError(t, runNATSAuth(t.Context(), args))
	again, err := os.ReadFile(filepath.Join(dir, "users.json"))
	require.NoError(t, err)
	assert.Equal(t, string(first), string(again), "passwords changed on a second run")
	for _, f := range []string{"users.json", "nats-server-auth.conf", "admin.json", "node-n1.json"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), f)
	}
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	opts, err := server.ProcessConfigFile(filepath.Join(dir, "nats-server-auth.conf"))
	require.NoError(t, err)
	require.Len(t, opts.Users, 5)
	for _, u := range opts.Users {
		if u.Username != "node-n2" {
			continue
		}
		want, err := broker.PermissionsFor(broker.RoleNode, "n2")
		require.NoError(t, err)
		assert.Equal(t, want.PublishAllow, u.Permissions.Publish.Allow)
		assert.Equal(t, want.SubscribeAllow, u.Permissions.Subscribe.Allow)
		assert.NotNil(t, u.Permissions.Response, "a node cannot answer requests")
	}
	c, err := broker.ReadNATSContext(filepath.Join(dir, "operator.json"))
	require.NoError(t, err)
	assert.Equal(t, "nats://nats:4222", c.URL)
	assert.Equal(t, "operator", c.User)
	assert.Equal(t, broker.InboxPrefix("operator"), c.InboxPrefix)
}
