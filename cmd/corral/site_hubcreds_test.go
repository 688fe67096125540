package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A --hub URL with the site's password in it is on the command line: the site's start warns of
// it (embedded.LeafRemoteOptions.CredentialsFlag). A URL without one, or the --hub-context's,
// where natscli keeps a password, is not warned of.
func TestHubURLWithCredentialsOnTheCommandLineIsMarked(t *testing.T) {
	hubContext := filepath.Join(t.TempDir(), "leaf-paris.json")
	require.NoError(t, os.WriteFile(hubContext, []byte(`{"url":"nats-leaf://leaf-paris:pw@hub:7422"}`), 0o600))
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--site", "paris", "--hub", "nats-leaf://leaf-paris:s3cret@hub:7422"}, "--hub"},
		{[]string{"--site", "paris", "--hub", "nats-leaf://hub-a:7422, nats-leaf://leaf-paris:s3cret@hub-b:7422"}, "--hub"},
		{[]string{"--site", "paris", "--hub", "nats-leaf://hub:7422"}, ""},
		{[]string{"--site", "paris", "--hub-context", hubContext}, ""},
	} {
		f := newFlags("up")
		site := f.siteFlags()
		require.NoError(t, f.parse(c.args))
		r, err := site.remote()
		require.NoError(t, err, c.args)
		assert.Equal(t, c.flag, r.CredentialsFlag, c.args)
	}
}
