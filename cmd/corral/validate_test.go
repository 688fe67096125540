package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A value the start would refuse, or take for something else, is refused by --check-config
// too, saying what is wrong and what the flag takes: corral up, node and gateway alike.
func TestCheckConfigRefusesWhatTheStartRefuses(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	aFile := filepath.Join(t.TempDir(), "afile")
	require.NoError(t, os.WriteFile(aFile, []byte("hi"), 0o600))
	commands := map[string]struct {
		run  func(context.Context, []string) error
		base []string
	}{
		"up":      {runUp, []string{"--data", data, "--nats-port", "-1", "--http", "127.0.0.1:0", "--adb", "off", "--usbmuxd", "off", "--log-level", "error"}},
		"node":    {runNode, []string{"--adb", "off", "--usbmuxd", "off", "--log-level", "error"}},
		"gateway": {runGateway, []string{"--log-level", "error"}},
	}
	for _, c := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"up", []string{"--web-profile", "banana"}, `--web-profile "banana": web: no profile "banana"; the profiles are phone, android, tablet, desktop`},
		{"up", []string{"--wda-port", "70000"}, "--wda-port 70000: not a port: give a number from 1 to 65535"},
		{"up", []string{"--nats-port", "70000"}, "--nats-port 70000: not a port: give a number from 1 to 65535, or -1 for any free port"},
		{"up", []string{"--http", "127.0.0.1:99999"}, `--http "127.0.0.1:99999": port "99999" is not a port: give a number from 1 to 65535 (0: any free port)`},
		{"up", []string{"--http", "127.0.0.1:abc"}, `--http "127.0.0.1:abc": port "abc" is not a port`},
		{"up", []string{"--http", "127.0.0.1:-1"}, `--http "127.0.0.1:-1": port "-1" is not a port`},
		{"up", []string{"--http", "127.0.0.1"}, `--http "127.0.0.1": give HOST:PORT, e.g. 127.0.0.1:8420 (missing port in address)`},
		{"up", []string{"--http", "nonsense"}, `--http "nonsense": give HOST:PORT, e.g. 127.0.0.1:8420 (missing port in address)`},
		{"up", []string{"--lease-ttl", "-5s"}, "--lease-ttl -5s: give a positive duration, e.g. 5m"},
		{"up", []string{"--lease-ttl", "0s"}, "--lease-ttl 0s: give a positive duration, e.g. 5m"},
		{"up", []string{"--lease-max", "0s"}, "--lease-max 0s: give a positive duration"},
		{"up", []string{"--sim", "-5"}, "--sim -5: give how many simulated phones to start, 0 or more (-1: 3 when no real device is attached)"},
		{"up", []string{"--sim-android", "-1"}, "--sim-android -1: give how many to start, 0 or more"},
		{"up", []string{"--sim-ios", "-3"}, "--sim-ios -3: give how many to start, 0 or more"},
		{"up", []string{"--sim-web", "-1"}, "--sim-web -1: give how many to start, 0 or more"},
		{"up", []string{"--grace", "-1s"}, "--grace -1s: give a positive duration, e.g. 1s"},
		{"up", []string{"--wda-rate", "-1"}, "--wda-rate -1: give the requests a second a device takes, a positive number"},
		{"up", []string{"--sim-android-input-startup", "-1s"}, "--sim-android-input-startup -1s: give a duration of 0 (none) or more"},
		{"up", []string{"--rate-limit", "0/s"}, "--rate-limit 0/s: a rate of zero would let no call through; give a positive rate, e.g. 50/s or 600/m, or off (or 0) for no limit"},
		{"up", []string{"--adb", "nonsense"}, `--adb "nonsense": give auto, off or the adb server's HOST:PORT, e.g. 127.0.0.1:5037 (missing port in address)`},
		{"up", []string{"--adb", "127.0.0.1:0"}, `--adb "127.0.0.1:0": give auto, off or the adb server's HOST:PORT`},
		{"up", []string{"--usbmuxd", "127.0.0.1:99999"}, `--usbmuxd "127.0.0.1:99999": give auto, off, usbmuxd's socket path (e.g. /var/run/usbmuxd) or its HOST:PORT (e.g. 127.0.0.1:27015) (port "99999" is not a port)`},
		{"up", []string{"--usbmuxd", "tcp://localhost"}, `--usbmuxd "tcp://localhost": give auto, off`},
		{"up", []string{"--usbmuxd", "  "}, `--usbmuxd "  ": give auto, off`},
		{"up", []string{"--wda-launch", "ios runwda"}, `--wda-launch "ios runwda": it names no {udid}: write {udid} where the iPhone's UDID goes`},
		{"up", []string{"--wda-launch", "no-such-launcher-here --udid={udid}"}, `--wda-launch "no-such-launcher-here --udid={udid}": no-such-launcher-here: not found: give a command on PATH or its path (or xctest, or none)`},
		{"up", []string{"--data", ""}, `--data "": give the directory for the embedded NATS's data`},
		{"up", []string{"--data", aFile}, "--data " + aFile + " is a file, not a directory"},
		{"up", []string{"extra"}, `unexpected argument "extra": corral up takes flags only ('corral up -h' lists them)`},

		{"node", []string{"--lease-ttl", "0s"}, "--lease-ttl 0s: give a positive duration"},
		{"node", []string{"--sim", "-5"}, "--sim -5: give how many simulated phones"},
		{"node", []string{"--web-profile", "banana"}, `--web-profile "banana"`},
		{"node", []string{"--wda-port", "0"}, "--wda-port 0: not a port"},
		{"node", []string{"--usbmuxd", "host:"}, `--usbmuxd "host:": give auto, off`},
		{"node", []string{"--metrics", "127.0.0.1:99999"}, `--metrics "127.0.0.1:99999": port "99999" is not a port`},
		{"node", []string{"--site", "s1", "--hub", "nats-leaf://127.0.0.1:7422", "--data", ""}, `--data "": give the directory`},
		{"node", []string{"--site", "s1", "--hub", "nats-leaf://127.0.0.1:7422", "--nats-port", "0"}, "--nats-port 0: not a port"},

		{"gateway", []string{"--http", "127.0.0.1"}, `--http "127.0.0.1": give HOST:PORT`},
		{"gateway", []string{"--http", "127.0.0.1:99999"}, `port "99999" is not a port`},
		{"gateway", []string{"--rate-limit", "0/m"}, "--rate-limit 0/m: a rate of zero would let no call through"},
		{"gateway", []string{"n1"}, `unexpected argument "n1": corral gateway takes flags only`},
	} {
		cmd := commands[c.cmd]
		args := append(append([]string{"--check-config"}, cmd.base...), c.args...)
		err := cmd.run(t.Context(), args)
		if assert.Error(t, err, "corral %s %v: configuration ok", c.cmd, c.args) {
			assert.Contains(t, err.Error(), c.want, "corral %s %v", c.cmd, c.args)
			assert.NotContains(t, err.Error(), "listens beyond this machine", "corral %s %v", c.cmd, c.args)
		}
	}
	_, err := os.Stat(data)
	assert.True(t, os.IsNotExist(err), "--check-config wrote --data")
}

// The start runs the same checks before anything starts: --data is not written, and an empty
// --data writes nothing into the current directory.
func TestUpRefusesBadFlagsBeforeStarting(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	data := filepath.Join(dir, "data")
	base := []string{"--data", data, "--nats-port", "-1", "--http", "127.0.0.1:0", "--adb", "off", "--usbmuxd", "off", "--log-level", "error"}
	for _, bad := range [][]string{
		{"--nats-port", "70000"}, {"--http", "127.0.0.1"}, {"--http", "127.0.0.1:99999"}, {"--lease-ttl", "0s"},
		{"--web-profile", "banana"}, {"--data", ""}, {"--sim-ios", "-3"},
	} {
		// A flag the checks miss starts the farm: the deadline ends it.
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		err := runUp(ctx, append(append([]string{}, base...), bad...))
		cancel()
		require.Error(t, err, "%v", bad)
		assert.Contains(t, err.Error(), bad[0], "the error names another flag than %v", bad)
		assert.NotContains(t, err.Error(), "is in use", "%v", bad)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "a refused corral up wrote into its directory or --data")
}

// A --config file or CORRAL_* value a flag cannot take says what the flag takes.
func TestConfigValuesSayWhatTheFlagTakes(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		`sim: "abc"`:             `sim: "abc": want an integer, e.g. 3`,
		"lease-ttl: forever":     `lease-ttl: "forever": want a duration, e.g. 30s, 5m or 1h30m`,
		"wda-rate: fast":         `wda-rate: "fast": want a number, e.g. 2.5`,
		"wda-port: -1":           `wda-port: "-1": want a whole number, 0 or more, e.g. 3`,
		"insecure-no-auth: sure": `insecure-no-auth: "sure": want true or false`,
	} {
		file := filepath.Join(dir, "c.yaml")
		require.NoError(t, os.WriteFile(file, []byte(body+"\n"), 0o600))
		err := runUp(t.Context(), []string{"--check-config", "--config", file})
		if assert.Error(t, err, body) {
			assert.Contains(t, err.Error(), "config "+file+": "+want)
			assert.NotContains(t, err.Error(), "parse error")
		}
	}
	t.Setenv("CORRAL_SIM", "three")
	err := runUp(t.Context(), []string{"--check-config"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `CORRAL_SIM="three": want an integer, e.g. 3`)
}

// Only an --http address in use hints at another corral; one this machine does not have says so.
func TestListenHTTPNamesTheProblem(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	_, err = listenHTTP(taken.Addr().String())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is another corral running? choose another address with --http")

	_, err = listenHTTP("192.0.2.1:8420") // TEST-NET-1: no machine has it
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--http 192.0.2.1:8420: ")
	assert.Contains(t, err.Error(), "give an address of this machine")
	assert.NotContains(t, err.Error(), "another corral")
}

// Under --usbmuxd auto, go-ios's USBMUXD_SOCKET_ADDRESS is where iPhones come from: a broken
// one is refused by name, not followed in vain.
func TestUsbmuxdFromTheEnvironmentIsChecked(t *testing.T) {
	t.Setenv("USBMUXD_SOCKET_ADDRESS", "127.0.0.1:0")
	err := runNode(t.Context(), []string{"--check-config", "--adb", "off", "--usbmuxd", "auto", "--log-level", "error"})
	if assert.Error(t, err) {
		assert.Contains(t, err.Error(), `USBMUXD_SOCKET_ADDRESS "127.0.0.1:0" (read under --usbmuxd auto): give a socket path or HOST:PORT (port "0" is not a port)`)
	}
	t.Setenv("USBMUXD_SOCKET_ADDRESS", "/nonexistent/usbmuxd")
	assert.NoError(t, runNode(t.Context(), []string{"--check-config", "--adb", "off", "--usbmuxd", "auto", "--log-level", "error"}))
}

// A refused value that came from the environment or the --config file is told with where it
// came from: the user typed no --sim.
func TestCheckConfigNamesWhereAValueCameFrom(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	base := []string{"--data", data, "--nats-port", "-1", "--http", "127.0.0.1:0", "--adb", "off", "--usbmuxd", "off", "--log-level", "error", "--check-config"}

	t.Setenv("CORRAL_SIM", "-5")
	err := runUp(t.Context(), base)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--sim -5: give how many simulated phones to start`)
	assert.Contains(t, err.Error(), `(--sim came from CORRAL_SIM="-5", not the command line)`)
	os.Unsetenv("CORRAL_SIM")

	config := filepath.Join(t.TempDir(), "corral.yaml")
	require.NoError(t, os.WriteFile(config, []byte("sim: -5\n"), 0o600))
	err = runUp(t.Context(), append(base, "--config", config))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "(--sim came from key sim of the config file "+config+", not the command line)")

	// On the command line, it is the flag's own.
	err = runUp(t.Context(), append(base, "--sim", "-5"))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "came from")
}

// The welcome's export line pastes into a shell whatever --data is: a path with spaces (or a
// quote) is quoted; a plain one is left as it is.
func TestShellQuoted(t *testing.T) {
	for path, want := range map[string]string{
		"/tmp/data/nats/admin.json":        "/tmp/data/nats/admin.json",
		"/tmp/my data dir/nats/admin.json": "'/tmp/my data dir/nats/admin.json'",
		"/tmp/it's/nats/admin.json":        `'/tmp/it'\''s/nats/admin.json'`,
		"/tmp/$HOME/nats/admin.json":       "'/tmp/$HOME/nats/admin.json'",
	} {
		assert.Equal(t, want, shellQuoted(path), path)
	}
}
