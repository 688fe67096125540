package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/mcp"
)

func gatewayOptions(t *testing.T, args ...string) error {
	t.Helper()
	f := newFlags("gateway")
	gf := f.gatewayFlags()
	if err := f.parse(args); err != nil {
		t.Fatal(err)
	}
	_, err := gf.options()
	return err
}

func TestGatewayFlagsAuth(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte("principals:\n  - name: ci\n    token: 0123456789abcdef0123\n    tools: [readonly]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("principals:\n  - name: ci\n    tokn: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string // "" for no error
	}{
		{nil, ""},
		{[]string{"--http", "localhost:0"}, ""},
		{[]string{"--http", "[::1]:8420"}, ""},
		{[]string{"--http", ":8420"}, "without --auth-policy"},
		{[]string{"--http", "0.0.0.0:8420"}, "--insecure-no-auth"},
		{[]string{"--http", "corral.example.com:8420"}, "listens beyond this machine"},
		{[]string{"--http", ":8420", "--insecure-no-auth"}, ""},
		{[]string{"--http", ":8420", "--auth-policy", good}, ""},
		{[]string{"--auth-policy", bad}, `line 3: unknown key "tokn"`},
		{[]string{"--auth-policy", filepath.Join(dir, "missing.yaml")}, "no such file"},
		{[]string{"--allowed-origins", "corral.example.com, https://agents.example.com"}, ""},
		{[]string{"--allowed-origins", "https://agents.example.com/path"}, "--allowed-origins"},
		{[]string{"--rate-limit", "off", "--rate-queue", "0"}, ""},
		{[]string{"--rate-limit", "fast"}, "--rate-limit"},
		{[]string{"--rate-burst", "-1"}, "--rate-burst -1: give the calls a device may take at once, 0 or more"},
		{[]string{"--max-body", "512KiB", "--read-timeout", "5s", "--max-conns", "0", "--session-ttl", "1m", "--max-sessions", "3"}, ""},
		{[]string{"--max-body", "lots"}, "--max-body"},
		{[]string{"--max-body", "0"}, "--max-body"},
		{[]string{"--read-timeout", "0s"}, "--read-timeout"},
		{[]string{"--max-sessions", "0"}, "--max-sessions"},
		{[]string{"--session-keys", "farm"}, ""},
		{[]string{"--session-keys", "shared"}, `--session-keys "shared": give principal`},
	} {
		err := gatewayOptions(t, c.args...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: error %v, want one saying %q", c.args, err, c.want)
		}
	}
}

// The policy can come from the environment, as every flag can.
func TestGatewayFlagsPolicyFromEnv(t *testing.T) {
	t.Setenv("CORRAL_AUTH_POLICY", filepath.Join(t.TempDir(), "missing.yaml"))
	if err := gatewayOptions(t); err == nil || !strings.Contains(err.Error(), "--auth-policy") {
		t.Fatalf("CORRAL_AUTH_POLICY not read: %v", err)
	}
}

// A node's --max-queue must leave room for one waiter, in --check-config and at start.
func TestNodeFlagsMaxQueue(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" for no error
	}{
		{nil, ""},
		{[]string{"--max-queue", "1"}, ""},
		{[]string{"--max-queue", "0"}, "--max-queue 0: at least 1"},
		{[]string{"--max-queue", "-5"}, "--max-queue -5: at least 1"},
	} {
		f := newFlags("node")
		ns := f.nodeFlags(0, platforms())
		if err := f.parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := ns.check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: error %v, want one saying %q", c.args, err, c.want)
		}
		if c.want != "" { // refused before the node dials NATS (there is none here)
			if _, err := startNode(t.Context(), broker.ConnectOptions{URL: "nats://127.0.0.1:1"}, ns, nil, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: startNode error %v, want one saying %q", c.args, err, c.want)
			}
		}
	}
}

// The front door's bounds reach the gateway's options, from flags or the environment.
func TestGatewayFlagsLimits(t *testing.T) {
	t.Setenv("CORRAL_MAX_BODY", "1MiB")
	f := newFlags("gateway")
	gf := f.gatewayFlags()
	require.NoError(t, f.parse([]string{"--max-conns", "0", "--session-ttl", "90s"}))
	opts, err := gf.options()
	require.NoError(t, err)
	assert.Equal(t, mcp.Limits{MaxBody: 1 << 20, ReadTimeout: mcp.DefaultReadTimeout, IdleTimeout: mcp.DefaultIdleTimeout,
		MaxConns: -1, SessionTTL: 90 * time.Second, MaxSessions: mcp.DefaultMaxSessions,
		SessionsPerPrincipal: mcp.SessionsPerPrincipalFor(broker.DefaultSessionsMaxBytes, 1)}, opts.Limits)
	for in, want := range map[string]int64{"4194304": 4 << 20, "4MiB": 4 << 20, "4m": 4 << 20, "512 KiB": 512 << 10, "100B": 100, "2GiB": 2 << 30, "1g": 1 << 30} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}

// The screenshots', the events' and the sessions' retention reach the stores the gateway keeps;
// a size or an age too small to keep one task's screenshots is refused with what to give.
func TestGatewayFlagsScreenshotRetention(t *testing.T) {
	t.Setenv("CORRAL_SCREENSHOTS_MAX_BYTES", "200MiB")
	t.Setenv("CORRAL_EVENTS_MAX_BYTES", "100MiB")
	t.Setenv("CORRAL_SESSIONS_MAX_BYTES", "64MiB")
	f := newFlags("gateway")
	gf := f.gatewayFlags()
	require.NoError(t, f.parse([]string{"--screenshots-max-age", "48h"}))
	got, err := gf.stores()
	require.NoError(t, err)
	assert.Equal(t, broker.StoreOptions{EventsMaxBytes: 100 << 20, ScreenshotsMaxAge: 48 * time.Hour, ScreenshotsMaxBytes: 200 << 20,
		SessionsMaxBytes: 64 << 20}, got)
	for _, bad := range [][]string{{"--screenshots-max-bytes", "10KiB"}, {"--screenshots-max-age", "1s"}, {"--screenshots-max-bytes", "lots"},
		{"--events-max-bytes", "512KiB"}, {"--events-max-bytes", "lots"}, {"--sessions-max-bytes", "512KiB"}, {"--sessions-max-bytes", "lots"}} {
		f := newFlags("gateway")
		gf := f.gatewayFlags()
		require.NoError(t, f.parse(bad))
		_, err := gf.stores()
		assert.ErrorContains(t, err, bad[0], bad)
		assert.Error(t, gf.check(), bad)
	}
}
