package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A --lease-ttl given longer than --lease-max can never apply (a lease ends at the earlier of
// the two): corral up and node refuse it, by --check-config and at the start, naming both
// flags, wherever the TTL was given. --lease-max alone below the default TTL is no
// contradiction (leases end at --lease-max), nor is a TTL within the maximum.
func TestLeaseTTLBeyondLeaseMaxIsRefused(t *testing.T) {
	noNATSSettings(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	up := []string{"--data", data, "--nats-port", "-1", "--http", "127.0.0.1:0", "--adb", "off", "--usbmuxd", "off", "--sim", "0", "--log-level", "error"}
	node := []string{"--adb", "off", "--usbmuxd", "off", "--sim", "0", "--log-level", "error", "--nats-url", "nats://127.0.0.1:1"}
	const want = "--lease-ttl 5m0s can never apply: --lease-max 1s ends every lease first"
	config := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(config, []byte("lease-ttl: 5m\n"), 0o600))
	for name, base := range map[string][]string{"up": up, "node": node} {
		run := commandNamed(t, name).run
		for _, given := range [][]string{
			{"--lease-max", "1s", "--lease-ttl", "5m"},
			{"--lease-max", "1s", "--config", config},
		} {
			err := run(t.Context(), append(append([]string{"--check-config"}, base...), given...))
			if assert.Error(t, err, "corral %s %v --check-config: configuration ok", name, given) {
				assert.Contains(t, err.Error(), want, "corral %s %v", name, given)
			}
		}
		t.Setenv("CORRAL_LEASE_TTL", "5m")
		err := run(t.Context(), append(append([]string{"--check-config"}, base...), "--lease-max", "1s"))
		if assert.Error(t, err, "corral %s CORRAL_LEASE_TTL=5m --lease-max 1s: configuration ok", name) {
			assert.Contains(t, err.Error(), want)
			assert.Contains(t, err.Error(), `--lease-ttl came from CORRAL_LEASE_TTL="5m"`)
		}
		require.NoError(t, os.Unsetenv("CORRAL_LEASE_TTL"))

		for _, ok := range [][]string{{"--lease-max", "1m"}, {"--lease-max", "10m", "--lease-ttl", "5m"}, {"--lease-max", "5m", "--lease-ttl", "5m"}} {
			var err error
			stderr := captureStderr(t, func() {
				err = run(t.Context(), append(append([]string{"--check-config"}, base...), ok...))
			})
			require.NoError(t, err, "corral %s %v", name, ok)
			assert.Equal(t, "configuration ok\n", stderr, "corral %s %v", name, ok)
		}
	}
	// The start refuses it before anything starts (one the checks miss starts the farm: the
	// deadline ends it).
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err := runUp(ctx, append(append([]string{}, up...), "--lease-max", "1s", "--lease-ttl", "5m"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), want)
	_, statErr := os.Stat(data)
	assert.True(t, os.IsNotExist(statErr), "a refused corral up wrote --data")
}
