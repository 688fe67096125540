package main

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/logtest"
)

// corral up (and node --site) started again with another --node-id drops the old node user's
// password from its embedded server's users.json and removes its context, node-OLD.json, as
// corral nats-auth forgets the users it no longer issues: kept, the old id's password was
// handed out again when the id came back. The other roles keep theirs; the old id, given
// again, gets a new password.
func TestEmbeddedNATSForgetsTheOldNodeIDsPassword(t *testing.T) {
	noNATSSettings(t)
	f := newFlags("up")
	site := f.siteFlags()
	require.NoError(t, f.parse(nil))
	data := t.TempDir()
	dir := filepath.Join(data, "nats")
	logs := &logtest.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	start := func(node string) {
		t.Helper()
		e, err := startEmbeddedNATS(data, -1, node, site, hubSettings{}, log)
		require.NoError(t, err)
		e.stop()
	}
	passwords := func() map[string]string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "users.json"))
		require.NoError(t, err)
		var pw map[string]string
		require.NoError(t, json.Unmarshal(b, &pw))
		return pw
	}

	start("n1")
	before := passwords()
	require.Contains(t, before, "node-n1")
	require.FileExists(t, filepath.Join(dir, "node-n1.json"))

	start("n2")
	after := passwords()
	assert.NotContains(t, after, "node-n1", "the old node id keeps its password")
	assert.NoFileExists(t, filepath.Join(dir, "node-n1.json"), "the old node id's context, its password in it, is left")
	assert.Contains(t, after, "node-n2")
	assert.FileExists(t, filepath.Join(dir, "node-n2.json"))
	for user, pw := range before {
		if user != "node-n1" {
			assert.Equal(t, pw, after[user], "user %s got a new password", user)
		}
	}
	assert.Contains(t, logs.String(), "user=node-n1")
	assert.NotContains(t, logs.String(), before["node-n1"], "a password logged")

	start("n1")
	again := passwords()
	assert.NotContains(t, again, "node-n2")
	assert.NotEqual(t, before["node-n1"], again[broker.UserName(broker.RoleNode, "n1")], "node n1, given again, got its old password back")
}
