package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
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
	require.Len(t, opts.Users, 6) // gateway, operator, admin, vision, node-n1, node-n2
	assert.Equal(t, int32(embedded.MaxPayload), opts.MaxPayload, "vision requests need the embedded server's max payload")
	seen := 0
	for _, u := range opts.Users {
		var want broker.Permissions
		switch u.Username {
		case "node-n2":
			want, err = broker.PermissionsFor(broker.RoleNode, "n2")
		case "vision":
			want, err = broker.PermissionsFor(broker.RoleVision, "")
		default:
			continue
		}
		seen++
		require.NoError(t, err)
		// The vision worker publishes nothing but answers: an empty allow list, which the
		// server keeps empty (allow nothing) because responses are allowed.
		require.NotNil(t, u.Permissions.Publish, u.Username)
		assert.ElementsMatch(t, want.PublishAllow, u.Permissions.Publish.Allow, u.Username)
		assert.NotNil(t, u.Permissions.Publish.Allow, "%s may publish anything", u.Username)
		assert.Equal(t, want.SubscribeAllow, u.Permissions.Subscribe.Allow)
		assert.NotNil(t, u.Permissions.Response, "%s cannot answer requests", u.Username)
	}
	assert.Equal(t, 2, seen)
	c, err := broker.ReadNATSContext(filepath.Join(dir, "operator.json"))
	require.NoError(t, err)
	assert.Equal(t, "nats://nats:4222", c.URL)
	assert.Equal(t, "operator", c.User)
	assert.Equal(t, broker.InboxPrefix("operator"), c.InboxPrefix)
}

// The server command corral nats-auth prints listens where the contexts it wrote point: with
// --url on port 26700, nats-server reads -p 26700 from it (its own command line parser), not
// its default 4222; with the default port it needs no -p.
func TestNATSAuthServerCommandListensOnTheContextsPort(t *testing.T) {
	for url, port := range map[string]int{"nats://127.0.0.1:26700": 26700, "nats://nats:4222": 4222, "nats://a:4333,nats://b:4333": 4333} {
		dir := filepath.Join(t.TempDir(), "auth")
		out := captureStdout(t, func() {
			require.NoError(t, runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "n1", "--url", url}))
		})
		_, cmd, ok := strings.Cut(out, "nats-server -js ")
		require.True(t, ok, out)
		cmd, _, _ = strings.Cut(cmd, ")")
		fs := flag.NewFlagSet("nats-server", flag.ContinueOnError)
		opts, err := server.ConfigureOptions(fs, strings.Fields(cmd), func() {}, func() {}, func() {})
		require.NoError(t, err, cmd)
		if opts.Port == 0 { // no -p: the server takes its default
			opts.Port = server.DEFAULT_PORT
		}
		assert.Equal(t, port, opts.Port, "--url %s: nats-server %s", url, cmd)
	}
}
