package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every flag value a command refuses before it starts anything exits 2, as a value the flag
// package cannot parse does (README: "2 for a command line it does not take"), with one message
// that names the flag and the value and says what it takes. --check-config runs the same checks
// as a start; a value the checks let through would print "configuration ok" and exit 0.
func TestEveryRefusedFlagValueExits2(t *testing.T) {
	noNATSSettings(t)
	const nats = "nats://127.0.0.1:1" // never dialled: the value is refused first
	site := []string{"--site", "s1", "--hub", "nats-leaf://hub.invalid:7422"}
	gw := func(args ...string) []string { return append([]string{"gateway", "--nats-url", nats}, args...) }
	node := func(args ...string) []string { return append([]string{"node", "--nats-url", nats}, args...) }
	authDir := filepath.Join(t.TempDir(), "auth")
	for _, c := range []struct {
		args []string
		want string // names the flag and the value
	}{
		// the gateway's sizes and rates (corral gateway and corral up)
		{gw("--rate-limit", "abc"), `--rate-limit: rate "abc"`},
		{gw("--rate-limit", "5/h"), `--rate-limit: rate "5/h"`},
		{gw("--rate-limit", "0/s"), "--rate-limit 0/s"},
		{gw("--rate-burst", "-1"), "--rate-burst -1"},
		{gw("--rate-queue", "-1"), "--rate-queue -1"},
		{gw("--max-body", "abc"), `--max-body "abc"`},
		{gw("--max-conns", "-1"), "--max-conns -1"},
		{gw("--max-sessions", "0"), "--max-sessions 0"},
		{gw("--read-timeout", "0s"), "--read-timeout 0s"},
		{gw("--session-ttl", "-1s"), "--session-ttl -1s"},
		{gw("--screenshots-max-bytes", "1K"), `--screenshots-max-bytes "1K"`},
		{gw("--events-max-bytes", "lots"), `--events-max-bytes "lots"`},
		{gw("--screenshots-max-age", "1s"), "--screenshots-max-age 1s"},
		{gw("--tools", "bogus"), `"bogus"`},
		{gw("--allowed-origins", "ftp://x/y"), `--allowed-origins "ftp://x/y"`},
		{gw("--http", "nope"), `--http "nope"`},
		{gw("--http", "0.0.0.0:8420"), "--http 0.0.0.0:8420"},
		{gw("--nats-replicas", "9"), "--nats-replicas 9"},
		{[]string{"up", "--rate-burst", "-5"}, "--rate-burst -5"},
		{[]string{"up", "--max-body", "0"}, `--max-body "0"`},
		// --drain-timeout and --drain-delay
		{gw("--drain-timeout", "-1s"), "--drain-timeout -1s"},
		{gw("--drain-delay", "-1s"), "--drain-delay -1s"},
		{[]string{"up", "--drain-delay", "30s", "--drain-timeout", "10s"}, "--drain-delay 30s"},
		// the site and hub flags
		{gw("--sites", "a b"), `--sites "a b"`},
		{[]string{"up", "--site", "a b"}, `--site "a b"`},
		{[]string{"up", "--site", "s1"}, "--site s1"},
		{[]string{"up", "--hub", "nats-leaf://hub.invalid:7422"}, "--hub"},
		{[]string{"up", "--sites", "a"}, "--sites"},
		{[]string{"up", "--sites", "a", "--leaf-listen", "nope"}, `--leaf-listen "nope"`},
		{[]string{"up", "--leaf-listen", "0.0.0.0:7422"}, "--leaf-listen 0.0.0.0:7422"},
		{append([]string{"up", "--sites", "a", "--leaf-listen", "0.0.0.0:7422"}, site...), "--site and --sites"},
		{node("--site", "a b"), `--site "a b"`},
		{append([]string{"node", "--nats-port", "0"}, site...), "--nats-port 0"},
		{append([]string{"node", "--data", ""}, site...), `--data ""`},
		// --sim, --max-queue and the other node flags
		{[]string{"up", "--sim", "-5"}, "--sim -5"},
		{node("--sim", "-2"), "--sim -2"},
		{[]string{"up", "--max-queue", "0"}, "--max-queue 0"},
		{node("--max-queue", "-1"), "--max-queue -1"},
		{node("--node-id", "a b"), `--node-id "a b"`},
		{node("--lease-ttl", "0s"), "--lease-ttl 0s"},
		{node("--lease-ttl", "5h", "--lease-max", "1h"), "--lease-ttl 5h0m0s"},
		{node("--metrics", "nope"), `--metrics "nope"`},
		{node("--events-max-bytes", "1"), `--events-max-bytes "1"`},
		{node("--nats-replicas", "-1"), "--nats-replicas -1"},
		{[]string{"up", "--nats-port", "70000"}, "--nats-port 70000"},
		{[]string{"up", "--data", ""}, `--data ""`},
		{gw("--nats-url", "nats://127.0.0.1:99999"), "nats://127.0.0.1:99999"},
		// a bad --gateway URL: malformed, the wrong scheme, no host, no port
		{[]string{"devices", "--gateway", "::nope"}, `--gateway "::nope"`},
		{[]string{"devices", "--gateway", "ftp://x"}, `--gateway "ftp://x"`},
		{[]string{"mcp-stdio", "--gateway", "http://"}, `--gateway "http://"`},
		{[]string{"mcp-stdio", "--gateway", "http://x:99999/mcp"}, `--gateway "http://x:99999/mcp"`},
		{[]string{"call", "--gateway", "ftp://x", "list_devices", "{}"}, `--gateway "ftp://x"`},
		{[]string{"abort", "--gateway", "ftp://x", "S"}, `--gateway "ftp://x"`},
		{[]string{"arm", "calibrate", "--gateway", "ftp://x", "S"}, `--gateway "ftp://x"`},
		{[]string{"tasks", "export", "--gateway", "ftp://x", "T"}, `--gateway "ftp://x"`},
		// --gateway where a command talks to NATS only
		{[]string{"drain", "--gateway", "http://127.0.0.1:1/mcp", "N"}, "--gateway http://127.0.0.1:1/mcp"},
		{[]string{"tasks", "--gateway", "http://127.0.0.1:1/mcp"}, "--gateway http://127.0.0.1:1/mcp"},
		{[]string{"release", "--force", "--gateway", "http://127.0.0.1:1/mcp", "S"}, "--gateway http://127.0.0.1:1/mcp"},
		// a flag the command does not take with another, or on the command line
		{[]string{"abort", "--by", "me", "--gateway", "http://127.0.0.1:1/mcp", "S"}, `--by "me" with --gateway`},
		{[]string{"release", "S", "--lease", "handle", "--nats-url", nats}, "--lease takes no value on the command line"},
		{[]string{"arm", "recover", "S", "--lease", "handle"}, "--lease takes no value on the command line"},
		{append([]string{"node", "--nats-url", nats}, site...), "--site runs the site's own NATS: drop --nats-url"},
		// the simulators and the arm page
		{[]string{"sim", "android", "--count", "0"}, "--count 0"},
		{[]string{"sim", "android", "--input-startup", "-1s"}, "--input-startup -1s"},
		{[]string{"sim", "ios", "--count", "-1"}, "--count -1"},
		{[]string{"sim", "arm", "--http", "nope"}, `--http "nope"`},
		{[]string{"arm", "page", "--listen", "nope"}, `--listen "nope"`},
		// nats-auth: refused before it makes --dir
		{[]string{"nats-auth", "--dir", authDir, "--node", "a b"}, `--node "a b"`},
		{[]string{"nats-auth", "--dir", authDir, "--node", "n1", "--site", "a b=s1-n1"}, `--site "a b=s1-n1"`},
		{[]string{"nats-auth", "--dir", authDir, "--node", "n1", "--site", "s1=s1-n1", "--leaf-url", "nope"}, `--leaf-url "nope"`},
		{[]string{"nats-auth", "--dir", authDir, "--node", "n1", "--url", "nats://x:99999"}, "nats://x:99999"},
		{[]string{"nats-auth", "--dir", "", "--node", "n1"}, `--dir ""`},
		{[]string{"nats-auth", "--dir", authDir}, "usage: corral nats-auth"},
	} {
		args := append(c.args, "--check-config")
		var code int
		out := captureOutput(t, func() { code = realMain(args) })
		assert.Equal(t, 2, code, "corral %s: %s", strings.Join(args, " "), out)
		assert.Contains(t, out, c.want, "corral %s", strings.Join(args, " "))
	}
	_, err := os.Stat(authDir)
	assert.ErrorIs(t, err, os.ErrNotExist, "nats-auth made its --dir before refusing a value")

	// A value from CORRAL_<FLAG> is refused the same, and the message says where it came from.
	t.Setenv("CORRAL_DRAIN_DELAY", "-1s")
	var code int
	out := captureOutput(t, func() { code = realMain(gw("--check-config")) })
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "--drain-delay -1s")
	assert.Contains(t, out, "came from CORRAL_DRAIN_DELAY")

	// The lease handle given twice: $CORRAL_LEASE and --lease-file.
	t.Setenv("CORRAL_LEASE", "handle")
	out = captureOutput(t, func() {
		code = realMain([]string{"release", "S", "--lease-file", filepath.Join(t.TempDir(), "lease"), "--nats-url", nats, "--check-config"})
	})
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "give the lease handle once")
}
