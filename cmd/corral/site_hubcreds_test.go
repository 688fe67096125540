package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A --hub URL with the site's password or a token in it is warned of by the site's start
// (embedded.LeafRemoteOptions.CredentialsFlag), naming where it came from: --hub on the command
// line, which ps shows, else CORRAL_HUB or the config file's key (it said --hub for those too).
// A URL without one, or the --hub-context's, where natscli keeps a password, is not warned of.
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
		{[]string{"--site", "paris", "--hub", "nats-leaf://s3cr?et-token@hub:7422"}, "--hub"},
	} {
		f := newFlags("up")
		site := f.siteFlags()
		require.NoError(t, f.parse(c.args))
		r, err := site.remote()
		require.NoError(t, err, c.args)
		assert.Equal(t, c.flag, r.CredentialsFlag, c.args)
	}
}

// A --hub from the environment or the config file is warned of as such: the warning names
// CORRAL_HUB or the file's key, not the command line, which did not show it.
func TestHubURLWithCredentialsFromElsewhereNamesWhere(t *testing.T) {
	const withPassword = "nats-leaf://leaf-paris:s3cret@hub:7422"
	t.Setenv("CORRAL_HUB", withPassword)
	f := newFlags("up")
	site := f.siteFlags()
	require.NoError(t, f.parse([]string{"--site", "paris"}))
	r, err := site.remote()
	require.NoError(t, err)
	assert.Equal(t, "CORRAL_HUB", r.CredentialsFlag)

	f = newFlags("up")
	site = f.siteFlags()
	require.NoError(t, f.parse([]string{"--site", "paris", "--hub", withPassword}))
	r, err = site.remote()
	require.NoError(t, err)
	assert.Equal(t, "--hub", r.CredentialsFlag, "the command line's --hub, with CORRAL_HUB set too")

	require.NoError(t, os.Unsetenv("CORRAL_HUB")) // t.Setenv restores it
	config := filepath.Join(t.TempDir(), "corral.yaml")
	require.NoError(t, os.WriteFile(config, []byte("site: paris\nhub: "+withPassword+"\n"), 0o600))
	f = newFlags("up")
	site = f.siteFlags()
	require.NoError(t, f.parse([]string{"--config", config}))
	r, err = site.remote()
	require.NoError(t, err)
	assert.Equal(t, "key hub of the config file "+config, r.CredentialsFlag)
}

// nats-auth's --leaf-url takes tls://HOST:PORT too (a hub's leaf port with a certificate); a
// value it refuses says so, not nats-leaf:// alone.
func TestNATSAuthLeafURLRefusalNamesBothSchemes(t *testing.T) {
	const want = "want nats-leaf://HOST:PORT or tls://HOST:PORT"
	_, err := checkNATSAuth(t.TempDir(), "nats://127.0.0.1:4222", "nope", []string{"hub-1"}, []string{"paris=paris-1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), want)
	_, err = hubLeafConfig("", "tls://hub")
	require.Error(t, err)
	assert.Contains(t, err.Error(), want)
}
