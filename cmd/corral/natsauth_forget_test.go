package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral nats-auth run again without a node (or site) it issued before drops that user's
// password from users.json, and says so: kept, it was handed out again when the id came back,
// so the decommissioned host could still log in. The users issued keep theirs, and a node
// given again later gets a new password.
func TestNATSAuthForgetsThePasswordsOfNodesItNoLongerIssues(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	run := func(args ...string) string {
		var err error
		out := captureStdout(t, func() { err = runNATSAuth(t.Context(), append([]string{"--dir", dir}, args...)) })
		require.NoError(t, err, out)
		return out
	}
	passwords := func() map[string]string {
		b, err := os.ReadFile(filepath.Join(dir, "users.json"))
		require.NoError(t, err)
		var pw map[string]string
		require.NoError(t, json.Unmarshal(b, &pw))
		return pw
	}

	run("--node", "n1", "--node", "n2", "--site", "s1=s1-n1")
	before := passwords()
	require.Contains(t, before, "node-n2")
	require.Contains(t, before, "leaf-s1")

	out := run("--node", "n1")
	after := passwords()
	assert.NotContains(t, after, "node-n2", "a node no longer issued keeps its password")
	assert.NotContains(t, after, "leaf-s1", "a site no longer issued keeps its password")
	assert.Contains(t, out, "Forgot the passwords of leaf-s1, node-n2")
	for _, kept := range []string{"node-n1", "admin", "gateway", "operator", "vision"} {
		assert.Equal(t, before[kept], after[kept], "user %s issued again got a new password", kept)
	}

	run("--node", "n1", "--node", "n2")
	again := passwords()
	require.Contains(t, again, "node-n2")
	assert.NotEqual(t, before["node-n2"], again["node-n2"], "node n2, given again, got its old password back")
	var ctx struct {
		Password string `json:"password"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "node-n2.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &ctx))
	assert.Equal(t, again["node-n2"], ctx.Password, "node-n2.json has another password than users.json")
}
