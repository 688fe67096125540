package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// corral nats-auth writes a configuration nats-server reads, with each role's permissions,
// and reuses its passwords when run again.
func TestNATSAuthWritesAServerConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	args := []string{"--dir", dir, "--node", "n1", "--node", "n2", "--url", "nats://nats:4222"}
	require.NoError(t, runNATSAuth(t.Context(), args))
	first, err := os.ReadFile(filepath.Join(dir, "users.json"))
	require.NoError(t, err)
	require.NoError(t, runNATSAuth(t.Context(), args))
	again, err := os.ReadFile(filepath.Join(dir, "users.json"))
	require.NoError(t, err)
	assert.Equal(t, string(first), string(again), "passwords changed on a second run")
	for _, f := range []string{"users.json", "nats-server-auth.conf", "admin.json", "node-n1.json"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), f)
	}
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())

	opts, err := server.ProcessConfigFile(filepath.Join(dir, "nats-server-auth.conf"))
	require.NoError(t, err)
	require.Len(t, opts.Users, 6) // gateway, operator, admin, vision, node-n1, node-n2
	assert.Equal(t, int32(embedded.MaxPayload), opts.MaxPayload, "vision requests need the embedded server's max payload")
	seen := 0
	for _, u := range opts.Users {
		var want broker.Permissions
		switch u.Username {
		case "node-n2":
			want, err = broker.PermissionsFor(broker.RoleNode, "n2")
		case "vision":
			want, err = broker.PermissionsFor(broker.RoleVision, "")
		default:
			continue
		}
		seen++
		require.NoError(t, err)
		// The vision worker publishes nothing but answers: an empty allow list, which the
		// server keeps empty (allow nothing) because responses are allowed.
		require.NotNil(t, u.Permissions.Publish, u.Username)
		assert.ElementsMatch(t, want.PublishAllow, u.Permissions.Publish.Allow, u.Username)
		assert.NotNil(t, u.Permissions.Publish.Allow, "%s may publish anything", u.Username)
		assert.Equal(t, want.SubscribeAllow, u.Permissions.Subscribe.Allow)
		assert.NotNil(t, u.Permissions.Response, "%s cannot answer requests", u.Username)
	}
	assert.Equal(t, 2, seen)
	c, err := broker.ReadNATSContext(filepath.Join(dir, "operator.json"))
	require.NoError(t, err)
	assert.Equal(t, "nats://nats:4222", c.URL)
	assert.Equal(t, "operator", c.User)
	assert.Equal(t, broker.InboxPrefix("operator"), c.InboxPrefix)
}

// The server command corral nats-auth prints listens where the contexts it wrote point: with
// --url on port 26700, nats-server reads -p 26700 from it (its own command line parser), not
// its default 4222; with the default port it needs no -p.
func TestNATSAuthServerCommandListensOnTheContextsPort(t *testing.T) {
	for url, port := range map[string]int{"nats://127.0.0.1:26700": 26700, "nats://nats:4222": 4222, "nats://a:4333,nats://b:4333": 4333} {
		dir := filepath.Join(t.TempDir(), "auth")
		out := captureStdout(t, func() {
			require.NoError(t, runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "n1", "--url", url}))
		})
		_, cmd, ok := strings.Cut(out, "nats-server -js ")
		require.True(t, ok, out)
		cmd, _, _ = strings.Cut(cmd, ")")
		fs := flag.NewFlagSet("nats-server", flag.ContinueOnError)
		opts, err := server.ConfigureOptions(fs, strings.Fields(cmd), func() {}, func() {}, func() {})
		require.NoError(t, err, cmd)
		if opts.Port == 0 { // no -p: the server takes its default
			opts.Port = server.DEFAULT_PORT
		}
		assert.Equal(t, port, opts.Port, "--url %s: nats-server %s", url, cmd)
	}
}

// A site's leaf user is made for the site's nodes, named with it (--site NAME=NODE,...): a
// site without them, or one user for every site (--site '*'), which took every node's
// requests, are refused with the form to use, before anything is written; a site given twice
// has the nodes of both.
func TestNATSAuthSiteNeedsItsNodes(t *testing.T) {
	for _, c := range []struct {
		sites []string
		want  string
	}{
		{[]string{"s1"}, `--site "s1": name the site's nodes, --site s1=NODE[,NODE...]`},
		{[]string{"s1="}, `--site "s1=": name the site's nodes`},
		{[]string{"*"}, `--site "*": a leaf user shared by every site would take every site's requests`},
		{[]string{"*=nA"}, `--site "*=nA": a leaf user shared by every site`},
		{[]string{"s1=nA", "s2=nB,nA"}, `--site "s2=nB,nA": node nA is at site s1 too`},
		{[]string{"s1=nA,nA"}, `--site "s1=nA,nA": node nA is given twice for site s1: give each node once`},
		{[]string{"s1=nA", "s1=nB,nA"}, `--site "s1=nB,nA": node nA is given twice for site s1`},
		{[]string{"s1=n.A"}, `--site "s1=n.A": node "n.A": use letters`},
		{[]string{"s1=*"}, `--site "s1=*": node "*"`},
		{[]string{"pa.ris=nA"}, `--site "pa.ris=nA": use NAME=NODE[,NODE...]`},
	} {
		dir := filepath.Join(t.TempDir(), "auth")
		args := []string{"--dir", dir, "--node", "*"}
		for _, s := range c.sites {
			args = append(args, "--site", s)
		}
		err := runNATSAuth(t.Context(), args)
		require.Error(t, err, c.sites)
		assert.Contains(t, err.Error(), c.want, c.sites)
		assert.NoDirExists(t, dir, "%v: written before the refusal", c.sites)
	}

	dir := filepath.Join(t.TempDir(), "auth")
	captureStdout(t, func() {
		require.NoError(t, runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "*", "--site", "s1=nA", "--site", "s1=nB, nC"}))
	})
	opts, err := server.ProcessConfigFile(filepath.Join(dir, "nats-server-auth.conf"))
	require.NoError(t, err)
	want, err := broker.LeafPermissions("s1", "nA", "nB", "nC")
	require.NoError(t, err)
	for _, u := range opts.Users {
		if u.Username == broker.LeafUserName("s1") {
			assert.Equal(t, want.SubscribeAllow, u.Permissions.Subscribe.Allow)
			assert.Equal(t, want.PublishAllow, u.Permissions.Publish.Allow)
			return
		}
	}
	t.Fatal("no leaf user for s1")
}

// The includes corral nats-auth prints work when copied: nats-server joins an include's path
// onto the including config's directory, even an absolute path, so the hint gives the path
// from the directory it names ("include /tmp/x/auth/nats-server-auth.conf" failed with "open
// tmp/x/auth/nats-server-auth.conf: no such file").
func TestNATSAuthIncludeHintsWork(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	out := captureStdout(t, func() {
		require.NoError(t, runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "*", "--site", "s1=nA"}))
	})
	hint := regexp.MustCompile(`include (\S+) from a nats-server config in (\S+?)[ )\n]`)
	found := hint.FindAllStringSubmatch(out, -1)
	require.Len(t, found, 2, "the server's include and the site's:\n%s", out)
	for i, m := range found {
		conf := filepath.Join(m[2], fmt.Sprintf("copied-%d.conf", i))
		require.NoError(t, os.WriteFile(conf, []byte("include "+m[1]+"\n"), 0o600))
		_, err := server.ProcessConfigFile(conf)
		assert.NoError(t, err, "nats-server's config in %s with %q", m[2], m[0])
	}
}
