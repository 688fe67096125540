package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// corral nats-auth --site writes what a hub's and a site's standalone nats-servers need: the
// hub's configuration takes the site as its leaf user (leaf connections only), the site's
// leafnodes block joins it with that user, and the context names it for corral up --site.
func TestNATSAuthSites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "auth")
	require.NoError(t, runNATSAuth(t.Context(), []string{"--dir", dir, "--node", "*", "--site", "paris=paris-1", "--leaf-url", "nats-leaf://127.0.0.1:7422"}))

	hubOpts, err := server.ProcessConfigFile(filepath.Join(dir, "nats-server-auth.conf"))
	require.NoError(t, err)
	assert.Equal(t, 7422, hubOpts.LeafNode.Port)
	assert.True(t, hubOpts.LeafNode.NoAdvertise, "the hub must not send sites past the address they were given")
	var leaf *server.User
	for _, u := range hubOpts.Users {
		if u.Username == broker.LeafUserName("paris") {
			leaf = u
		}
	}
	require.NotNil(t, leaf, "no leaf user for site paris")
	assert.Equal(t, map[string]struct{}{"LEAFNODE": {}}, leaf.AllowedConnectionTypes, "the leaf user may connect as a client")
	want, err := broker.LeafPermissions("paris", "paris-1")
	require.NoError(t, err)
	assert.Equal(t, want.PublishAllow, leaf.Permissions.Publish.Allow)
	assert.Equal(t, want.SubscribeAllow, leaf.Permissions.Subscribe.Allow)

	// The hub, and the site joining it with its block.
	hubOpts.Port, hubOpts.LeafNode.Port, hubOpts.JetStream, hubOpts.StoreDir = -1, -1, true, t.TempDir()
	hub := runTestServer(t, hubOpts)
	block, err := os.ReadFile(filepath.Join(dir, "leaf-paris-remote.conf"))
	require.NoError(t, err)
	assert.Contains(t, string(block), "domain: paris")
	siteConf := filepath.Join(t.TempDir(), "site.conf")
	joined := strings.Replace(string(block), "127.0.0.1:7422", fmt.Sprintf("127.0.0.1:%d", hubOpts.LeafNode.Port), 1)
	require.NoError(t, os.WriteFile(siteConf, []byte("port: -1\njetstream { domain: paris, store_dir: "+
		strconv.Quote(t.TempDir())+" }\n"+joined), 0o600))
	siteOpts, err := server.ProcessConfigFile(siteConf)
	require.NoError(t, err)
	assert.Equal(t, broker.LeafLocal, siteOpts.LeafNode.Remotes[0].DenyImports)
	runTestServer(t, siteOpts)
	deadline := time.Now().Add(10 * time.Second)
	for hub.NumLeafNodes() != 1 {
		require.False(t, time.Now().After(deadline), "the site did not join the hub as leaf-paris")
		time.Sleep(10 * time.Millisecond)
	}

	ctx, err := broker.ReadNATSContext(filepath.Join(dir, "leaf-paris.json"))
	require.NoError(t, err)
	assert.Equal(t, "nats-leaf://127.0.0.1:7422", ctx.URL)
	assert.Equal(t, broker.LeafUserName("paris"), ctx.User)
}

// A process is an edge site or a hub, with what each needs; bad combinations are refused
// before anything starts.
func TestEdgeFlagsChecked(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" for accepted
	}{
		{nil, ""},
		{[]string{"--site", "paris", "--hub", "nats-leaf://hub:7422"}, ""},
		{[]string{"--leaf-listen", "0.0.0.0:7422", "--sites", "paris,tokyo"}, ""},
		{[]string{"--hub", "nats-leaf://hub:7422"}, "give --site NAME too"},
		{[]string{"--site", "paris"}, "name the hub"},
		{[]string{"--site", "par.is", "--hub", "nats-leaf://hub:7422"}, `--site "par.is"`},
		{[]string{"--site", "paris", "--hub-context", "/nonexistent.json"}, "--hub-context"},
		{[]string{"--sites", "paris"}, "give --leaf-listen"},
		{[]string{"--leaf-listen", "0.0.0.0:7422"}, "name the sites it takes with --sites a,b, on every start"},
		{[]string{"--leaf-listen", "7422", "--sites", "paris"}, "want HOST:PORT"},
		{[]string{"--site", "paris", "--hub", "nats-leaf://hub:7422", "--sites", "tokyo", "--leaf-listen", ":7422"}, "not both"},
	} {
		f := newFlags("up")
		gf := f.gatewayFlags()
		site := f.siteFlags()
		listen := f.leafListenFlag()
		require.NoError(t, f.parse(c.args))
		err := checkEdge(site, hubSettings{*listen, gf.siteList()})
		if c.want == "" {
			assert.NoError(t, err, c.args)
		} else if assert.Error(t, err, c.args) {
			assert.Contains(t, err.Error(), c.want, c.args)
		}
	}
}

// corral up's --sites says a hub names its sites on every start: its help said that empty
// keeps the stores' sites, which --leaf-listen refuses.
func TestUpSitesHelpAgreesWithLeafListen(t *testing.T) {
	f := newFlags("up")
	f.gatewayFlags()
	f.leafListenFlag()
	assert.Contains(t, f.Lookup("sites").Usage, "with --leaf-listen, name them on every start")
	assert.Contains(t, f.Lookup("leaf-listen").Usage, "named on every start")
}

func runTestServer(t *testing.T, opts *server.Options) *server.Server {
	t.Helper()
	opts.Host, opts.NoSigs, opts.NoLog = "127.0.0.1", true, true
	s, err := server.NewServer(opts)
	require.NoError(t, err)
	go s.Start()
	t.Cleanup(s.Shutdown)
	require.True(t, s.ReadyForConnections(10*time.Second), "nats-server did not start")
	return s
}
