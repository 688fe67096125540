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

// nats-auth's --ca is the client port's: a site's leaf context that took it asked the hub's
// plain leaf port for TLS and failed for ever. The leaf contexts take it only with a tls://
// --leaf-url, whose leafnodes block then says where the certificate goes; otherwise the output
// says how to carry the link over TLS.
func TestNATSAuthLeafContextsTakeTheCAOnlyOverTLS(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, []byte("a CA"), 0o600))
	run := func(leafURL string) (dir, out string) {
		dir = filepath.Join(t.TempDir(), "auth")
		out = captureStdout(t, func() {
			require.NoError(t, runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "hub-1", "--site", "paris=paris-1",
				"--ca", ca, "--leaf-url", leafURL}))
		})
		return dir, out
	}
	contextCA := func(path string) string {
		c, err := broker.ReadNATSContext(path)
		require.NoError(t, err)
		return c.CA
	}

	dir, out := run("nats-leaf://127.0.0.1:7422")
	assert.Empty(t, contextCA(filepath.Join(dir, "leaf-paris.json")), "a leaf context asks a plain leaf port for TLS")
	assert.Equal(t, ca, contextCA(filepath.Join(dir, "node-hub-1.json")), "the client port's contexts trust --ca")
	assert.Contains(t, out, "the sites' contexts take no --ca: the leafnodes block takes no TLS")
	assert.Contains(t, out, "--leaf-url tls://HOST:PORT")

	dir, out = run("tls://127.0.0.1:7422")
	assert.Equal(t, ca, contextCA(filepath.Join(dir, "leaf-paris.json")))
	assert.NotContains(t, out, "take no --ca")
	conf, err := os.ReadFile(filepath.Join(dir, "nats-server-auth.conf"))
	require.NoError(t, err)
	assert.Contains(t, string(conf), "tls { cert_file:", "the leafnodes block says where the leaf port's certificate goes")
	opts, err := server.ProcessConfigFile(filepath.Join(dir, "nats-server-auth.conf"))
	require.NoError(t, err, "the configuration with the TLS comment is read")
	assert.Equal(t, 7422, opts.LeafNode.Port)
}

// A node id given as the hub's (--node) and a site's (--site) is refused before anything is
// written: a hub node ran beside the site's under the same id and deleted the hub's copies of
// the site node's entries.
func TestNATSAuthRefusesANodeAtTheHubAndASite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	err := runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "hub-1", "--node", "paris-1", "--site", "paris=paris-1,paris-2"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--node paris-1 and --site paris=paris-1,paris-2: node paris-1 would be both the hub's and site paris's")
	assert.Contains(t, err.Error(), "a node id is unique in the whole farm")
	assert.NoDirExists(t, dir, "written before the refusal")

	captureStdout(t, func() {
		require.NoError(t, runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "*", "--site", "paris=paris-1"}),
			"the shared node user is no node id")
	})
}
