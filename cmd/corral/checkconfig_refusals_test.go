package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --check-config refuses what the start refuses before it reaches anything: a --gateway no
// gateway speaks, a --token-file that cannot be read, a --nats-replicas JetStream cannot
// keep. It said "configuration ok" to each, and the start then failed.
func TestCheckConfigRefusesBadGatewayTokenAndReplicas(t *testing.T) {
	noNATSSettings(t)
	t.Setenv("CORRAL_TOKEN", "")
	dir := t.TempDir()
	steps := filepath.Join(dir, "steps.yaml")
	require.NoError(t, os.WriteFile(steps, []byte("serial: s1\nsteps:\n  - method: home\n"), 0o600))
	missing := filepath.Join(dir, "no-token")
	noNATS := []string{"--nats-url", "nats://127.0.0.1:1"}
	for _, c := range []struct {
		command string
		args    []string
		want    string
	}{
		{"devices", []string{"--gateway", "ftp://x"}, "a gateway speaks http or https, not ftp"},
		{"call", []string{"--gateway", "ftp://x", "home", `{"serial":"s1"}`}, "a gateway speaks http or https, not ftp"},
		{"mcp-stdio", []string{"--gateway", "ftp://x"}, "a gateway speaks http or https, not ftp"},
		{"run", []string{steps, "--gateway", "ftp://x"}, "a gateway speaks http or https, not ftp"},
		{"devices", []string{"--gateway", "http://127.0.0.1:1/mcp", "--token-file", missing}, "--token-file: open " + missing},
		{"mcp-stdio", []string{"--token-file", missing}, "--token-file: open " + missing},
		{"run", []string{steps, "--token-file", missing}, "--token-file: open " + missing},
		{"gateway", append([]string{"--http", "127.0.0.1:0", "--nats-replicas", "-3"}, noNATS...), "--nats-replicas -3: JetStream keeps 1 to 5 replicas"},
		{"node", append([]string{"--sim", "1", "--adb", "off", "--usbmuxd", "off", "--metrics", "", "--nats-replicas", "9"}, noNATS...),
			"--nats-replicas 9: JetStream keeps 1 to 5 replicas"},
	} {
		t.Run(c.command+" "+c.want, func(t *testing.T) {
			run := commandNamed(t, c.command).run
			var err error
			stderr := captureStderr(t, func() {
				err = run(t.Context(), append([]string{"--check-config", "--log-level", "error"}, c.args...))
			})
			require.Error(t, err, "corral %s %v --check-config: %s", c.command, c.args, stderr)
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, stderr, "configuration ok")
		})
	}
}
