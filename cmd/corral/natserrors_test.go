package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A node whose password NATS refuses is told that its user was refused (a wrong password?),
// and pointed at its own context, not at the admin's.
func TestNodeWithAWrongPasswordIsToldItsUserWasRefused(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Auth: true, Quiet: true})
	wrong := filepath.Join(t.TempDir(), "wrong.pw")
	require.NoError(t, os.WriteFile(wrong, []byte("not-the-password\n"), 0o600))
	err := runNode(t.Context(), []string{"--nats-url", f.URL, "--nats-user", "node-n2", "--nats-password-file", wrong,
		"--node-id", "n2", "--adb", "off", "--usbmuxd", "off", "--metrics", "", "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `NATS refused user "node-n2": wrong password?`)
	assert.Contains(t, err.Error(), "the node role's context is node-n2.json")
	assert.NotContains(t, err.Error(), "NATS wants credentials")
	assert.NotContains(t, err.Error(), "admin.json")
}

// A gateway started with a role that may not keep its stores (the operator's, read-only) is
// told that NATS refused it and which role's context to use, not to check JetStream.
func TestGatewayWithTheWrongRoleIsToldTheRefusal(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Auth: true, Quiet: true})
	err := runGateway(t.Context(), []string{"--nats-context", f.Context("operator"), "--http", "127.0.0.1:0", "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `NATS refused to let NATS user "operator" publish to "$JS.API.STREAM.`)
	assert.Contains(t, err.Error(), "corral gateway runs as the gateway role: give --nats-context with its context, gateway.json")
	assert.NotContains(t, err.Error(), "is JetStream enabled")
	assert.NotContains(t, err.Error(), "deadline exceeded", "the refusal waited for the store request's timeout")
}
