package nodes_test

import (
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

// The browsers of --sim-web are simulated devices as the other simulators' are: tagged sim, so
// a node restarted with fewer removes the others from the registry instead of listing them
// offline for ever ("node local shut down"). --web-max's browsers beyond them are too; --web's
// are not.
func TestRestartedNodeForgetsItsSimulatedBrowsers(t *testing.T) {
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
	simulated := func(d broker.DeviceEntry) bool { return slices.Contains(d.Tags, device.SimulatedTag) }

	first := r.startNodeWithDrivers("n1")
	stop := attach(first, "--sim-web", "1", "--web-max", "3")
	for _, serial := range []string{"web-01", "web-02", "web-03"} {
		d := r.waitEntry("n1", serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
		if !simulated(d) {
			t.Errorf("%s of --sim-web 1 --web-max 3: tags %v, want %q", serial, d.Tags, device.SimulatedTag)
		}
	}
	stop()
	first.Stop()

	second := r.startNodeWithDrivers("n1")
	t.Cleanup(attach(second, "--web", "1"))
	d := r.waitEntry("n1", "web-01", "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	if simulated(d) {
		t.Errorf("web-01 of --web 1: tags %v, want no %q", d.Tags, device.SimulatedTag)
	}
	for _, serial := range []string{"web-02", "web-03"} {
		_, err := r.stores.Registry.Get(r.ctx, broker.RegistryKey("n1", serial))
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			t.Errorf("%s of the last run is still in the registry: %v", serial, err)
		}
		farmtest.Eventually(t, 15*time.Second, func() bool { _, listed := r.gw.Device(serial); return !listed },
			"%s: still in the gateway's view", serial)
	}
}
