package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Browser-device flags that contradict each other are refused, by --check-config and by the
// start, naming both flags: --web-max below the browsers always running was read as "just
// those", and a --web-home no browser opens failed every HOME after the start.
func TestWebFlagsThatContradictAreRefused(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	up := []string{"--data", data, "--nats-port", "-1", "--http", "127.0.0.1:0", "--adb", "off", "--usbmuxd", "off", "--log-level", "error"}
	node := []string{"--adb", "off", "--usbmuxd", "off", "--log-level", "error", "--nats-url", "nats://127.0.0.1:1"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--web", "2", "--web-max", "1"}, "--web-max 1 is fewer than the 2 browser devices --web 2 always run"},
		{[]string{"--web", "1", "--sim-web", "1", "--web-max", "1"}, "--web-max 1 is fewer than the 2 browser devices --web 1 and --sim-web 1 always run"},
		{[]string{"--web-home", "notaurl"}, `--web-home "notaurl" is not a URL: give the page HOME opens`},
		{[]string{"--web-home", "ftp://example.org/"}, `--web-home "ftp://example.org/": a browser device opens http, https, file or about pages, not ftp`},
		{[]string{"--web-home", "https:///path"}, `--web-home "https:///path" has no host`},
		{[]string{"--web-home", "https://u:secretpw@other.org/", "--web-allow", "example.org"},
			`--web-home "https://u:REDACTED@other.org/" is on host other.org, which --web-allow "example.org" does not allow`},
	}
	for _, c := range cases {
		for name, base := range map[string][]string{"up": up, "node": node} {
			if name == "node" && c.args[0] == "--web" && c.args[2] == "--sim-web" {
				continue // corral node has no --sim-web
			}
			err := commandNamed(t, name).run(t.Context(), append(append([]string{"--check-config"}, base...), c.args...))
			if assert.Error(t, err, "corral %s %v --check-config: configuration ok", name, c.args) {
				assert.Contains(t, err.Error(), c.want, "corral %s %v", name, c.args)
				assert.NotContains(t, err.Error(), "secretpw")
			}
		}
		// The start refuses them before anything starts (one the checks miss starts the farm,
		// browsers and all: the deadline ends it).
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		err := runUp(ctx, append(append([]string{}, up...), c.args...))
		cancel()
		require.Error(t, err, "corral up %v", c.args)
		assert.Contains(t, err.Error(), c.want, "corral up %v", c.args)
	}
	// What does not contradict passes: --web-max of 0 (just the --web N) or more, a home page
	// on an allowed host, about:blank, a file.
	for _, ok := range [][]string{
		{"--web", "2", "--web-max", "0"}, {"--web", "2", "--web-max", "2"}, {"--web", "1", "--web-max", "3"},
		{"--web-home", "https://example.org/start", "--web-allow", "*.example.org,example.org"},
		{"--web-home", "about:blank"}, {"--web-home", "file:///srv/home.html"},
	} {
		var err error
		stderr := captureStderr(t, func() {
			err = runUp(t.Context(), append(append([]string{"--check-config"}, up...), ok...))
		})
		require.NoError(t, err, "corral up %v", ok)
		assert.Equal(t, "configuration ok\n", stderr, "corral up %v", ok)
	}
}
