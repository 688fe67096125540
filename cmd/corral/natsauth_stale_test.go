package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral nats-auth run again without a node it issued before removes that node's context file
// and says so: left behind, node-n2.json (its password in it) looked issued, though the
// server's configuration has no such user any more. The files of the nodes and sites it
// issues now, and files that are not a node's or a site's, stay.
func TestNATSAuthRemovesTheContextsOfNodesItNoLongerIssues(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	var err error
	out := captureStdout(t, func() {
		err = runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "n1", "--node", "n2", "--node", "*", "--site", "s1=s1-n1"})
	})
	require.NoError(t, err, out)
	for _, f := range []string{"node-n1.json", "node-n2.json", "node.json", "leaf-s1.json", "leaf-s1-remote.conf"} {
		require.FileExists(t, filepath.Join(dir, f))
	}
	mine := filepath.Join(dir, "notes.json") // not a context nats-auth writes
	require.NoError(t, os.WriteFile(mine, []byte("{}"), 0o600))

	out = captureStdout(t, func() { err = runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "n1"}) })
	require.NoError(t, err, out)
	for _, gone := range []string{"node-n2.json", "node.json", "leaf-s1.json", "leaf-s1-remote.conf"} {
		assert.NoFileExists(t, filepath.Join(dir, gone), "a context of a user no longer issued")
		assert.Contains(t, out, filepath.Join(dir, gone), "the removal is not said")
	}
	assert.Contains(t, out, "no longer issued")
	assert.FileExists(t, filepath.Join(dir, "node-n1.json"))
	assert.FileExists(t, filepath.Join(dir, "admin.json"))
	assert.FileExists(t, mine, "a file nats-auth did not write")

	opts, err := server.ProcessConfigFile(filepath.Join(dir, "nats-server-auth.conf"))
	require.NoError(t, err)
	for _, u := range opts.Users {
		assert.NotEqual(t, "node-n2", u.Username, "the server's configuration still has the node")
	}
}
