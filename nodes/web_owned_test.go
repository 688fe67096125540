package nodes_test

import (
	"context"
	"errors"
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/web"
)

// Brief C 2: the browsers of --web (real ones, no sim tag) of a node restarted with fewer stayed
// in the registry, offline ("node n1 restarted; device not attached yet"), for ever. Every
// browser the node makes from its flags is tagged web, and a restart removes those it does not
// make again; a browser device brought to the node otherwise is not the flags', and its entry
// stays, offline.
func TestRestartedNodeForgetsTheBrowsersOfItsWebFlagNotOthers(t *testing.T) {
	if _, err := chromium.Find(); err != nil {
		t.Skip(err)
	}
	r := newRestartRig(t, false)
	attach := func(n *nodes.Node, args ...string) func() {
		fs := flag.NewFlagSet("node", flag.ContinueOnError)
		a := web.Platform().Flags(fs)
		require.NoError(t, fs.Parse(args))
		stop, err := a.Attach(r.ctx, n, r.log)
		require.NoError(t, err)
		return stop
	}
	ctx, cancel := context.WithTimeout(r.ctx, time.Minute)
	defer cancel()
	// Lazy: its Chromium starts at its first use, which never comes here.
	other, err := web.Start(ctx, web.Options{Serial: "web-brought", Profile: web.Profiles[0], Lazy: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close() })

	first := r.startNodeWithDrivers("n1", other)
	stop := attach(first, "--web", "1", "--web-max", "3")
	online := func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline }
	for _, serial := range []string{"web-01", "web-02", "web-03"} {
		d := r.waitEntry("n1", serial, "online", online)
		if !slices.Contains(d.Tags, device.NodeBrowserTag) || slices.Contains(d.Tags, device.SimulatedTag) {
			t.Errorf("%s of --web 1 --web-max 3: tags %v, want %q and no %q", serial, d.Tags, device.NodeBrowserTag, device.SimulatedTag)
		}
	}
	if d := r.waitEntry("n1", "web-brought", "online", online); len(d.Tags) != 0 {
		t.Errorf("web-brought, not of the node's flags: tags %v, want none", d.Tags)
	}
	first.Stop() // as corral node stops: the node first, then its platforms
	stop()

	second := r.startNodeWithDrivers("n1")
	t.Cleanup(attach(second, "--web", "1"))
	r.waitEntry("n1", "web-01", "online", online)
	for _, serial := range []string{"web-02", "web-03"} {
		_, err := r.stores.Registry.Get(r.ctx, broker.RegistryKey("n1", serial))
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			t.Errorf("%s of the last run's --web-max is still in the registry: %v", serial, err)
		}
		farmtest.Eventually(t, 15*time.Second, func() bool { _, listed := r.gw.Device(serial); return !listed },
			"%s: still in the gateway's view", serial)
	}
	d := r.waitEntry("n1", "web-brought", "listed offline", func(d broker.DeviceEntry) bool { return d.State == broker.StateOffline })
	t.Logf("web-brought after the restart: %s (%s)", d.State, d.Reason)
}
