package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The warning of a password in the NATS URL names where the URL came from: it blamed
// --nats-url for a CORRAL_NATS_URL or a config file's, and said nothing of NATS_URL's. The
// password is never shown.
func TestNATSURLCredentialsWarningNamesItsSource(t *testing.T) {
	const url = "nats://op:hunter2pw@127.0.0.1:1" // nothing listens: the warning comes first
	config := filepath.Join(t.TempDir(), "corral.yaml")
	require.NoError(t, os.WriteFile(config, []byte("nats-url: "+url+"\n"), 0o600))
	for _, c := range []struct {
		env       map[string]string
		args      []string
		want, not string
	}{
		{nil, []string{"--nats-url", url}, "the NATS URL carries credentials: on a command line (--nats-url)", "URL from"},
		{map[string]string{"CORRAL_NATS_URL": url}, nil, "the NATS URL from CORRAL_NATS_URL carries credentials", "(--nats-url)"},
		{map[string]string{"NATS_URL": url}, nil, "the NATS URL from $NATS_URL carries credentials", "(--nats-url)"},
		{nil, []string{"--config", config}, "the NATS URL from key nats-url of the config file " + config + " carries credentials", "(--nats-url)"},
	} {
		noNATSSettings(t)
		t.Setenv("CORRAL_NATS_URL", "")
		os.Unsetenv("CORRAL_NATS_URL") // set above, so that t restores it
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		var err error
		stderr := captureStderr(t, func() {
			err = commandNamed(t, "devices").run(t.Context(), append([]string{"--timeout", "10s"}, c.args...))
		})
		require.Error(t, err, "nothing listens at %s", url)
		line := ""
		for l := range strings.Lines(stderr) {
			if strings.Contains(l, "carries credentials") {
				line = l
			}
		}
		assert.Contains(t, line, c.want, "%v %v: %s", c.env, c.args, stderr)
		assert.NotContains(t, line, c.not, "%v %v", c.env, c.args)
		assert.Contains(t, line, "op:REDACTED@127.0.0.1:1")
		assert.Equal(t, 1, strings.Count(stderr, "carries credentials"), stderr)
		assert.NotContains(t, stderr+err.Error(), "hunter2pw")
	}
}
