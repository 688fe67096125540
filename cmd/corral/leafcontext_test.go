package main

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// A hub's leaf context (DATA/nats/leaf-lab1.json, written as corral up --leaf-listen --sites
// lab1 writes it) given to a command says it is a site's, for the hub's leaf node port, and
// names the admin's and operator's contexts beside it; the leaf port dialled with the admin's
// credentials says it is the sites' port. Both said nats.go's "attempted to connect to leaf
// node port" with the hint of a server that is not running.
func TestLeafContextGivenToACommandNamesTheRoleContexts(t *testing.T) {
	noNATSSettings(t)
	pw := func(string) (string, error) { return "pw", nil }
	users, err := broker.FarmUsers([]string{"local"}, pw)
	require.NoError(t, err)
	leafUsers, err := broker.SiteUsers([]string{"lab1"}, pw)
	require.NoError(t, err)
	hubLeaves, err := embeddedLeafUsers(leafUsers, nil)
	require.NoError(t, err)
	listen := &embedded.LeafListenOptions{Host: "127.0.0.1", Port: -1}
	o := embedded.Options{Port: -1, StoreDir: t.TempDir(), LeafListen: listen, Users: hubLeaves}
	for _, u := range users {
		p, err := u.Permissions()
		require.NoError(t, err)
		o.Users = append(o.Users, embedded.User{Name: u.Name, Password: u.Password, Permissions: embedded.Permissions(p)})
	}
	ns, err := embedded.Start(o, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	dir := filepath.Join(t.TempDir(), "nats")
	secrets, err := broker.OpenSecrets(dir)
	require.NoError(t, err)
	_, err = secrets.WriteContexts(ns.ClientURL(), "", users)
	require.NoError(t, err)
	require.NoError(t, writeLeafContexts(secrets, listen, leafUsers, slog.New(slog.DiscardHandler)))
	leaf, admin := filepath.Join(dir, "leaf-lab1.json"), filepath.Join(dir, "admin.json")
	require.FileExists(t, leaf)

	t.Setenv("NATS_CONTEXT", leaf)
	for _, args := range [][]string{{"devices"}, {"tasks"}, {"call", "list_available_devices", "{}"}} {
		code, out, errOut := corralMain(t, append(args, "--timeout", "20s")...)
		assert.Equal(t, 1, code, "%v:\n%s%s", args, out, errOut)
		assert.Contains(t, errOut, "NATS context "+leaf+" is site lab1's leaf context (NATS user leaf-lab1, for the hub's leaf node port", args)
		assert.Contains(t, errOut, "no command can connect with it; give the admin's context, --nats-context "+admin+
			" (or "+filepath.Join(dir, "operator.json")+", to read only)", args)
	}

	t.Setenv("NATS_CONTEXT", "")
	leafPort := fmt.Sprintf("nats://127.0.0.1:%d", listen.Port)
	code, out, errOut := corralMain(t, "devices", "--nats-context", admin, "--nats-url", leafPort, "--timeout", "20s")
	assert.Equal(t, 1, code, "%s%s", out, errOut)
	assert.Contains(t, errOut, "that port is a hub's leaf node port, which sites' NATS servers join, not commands")

	// The admin's context beside it reaches the hub's NATS (where no farm started here).
	_, _, errOut = corralMain(t, "devices", "--nats-context", admin, "--timeout", "20s")
	assert.Contains(t, errOut, "no Corral farm on this NATS")
}
