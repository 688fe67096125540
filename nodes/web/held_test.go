package web

import (
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// holdBrowser puts d on a farm's node, waits for it online, and leases it as holder through
// the front door. call runs a device tool under the lease (its text, and whether it failed);
// release gives the lease back.
func holdBrowser(t *testing.T, d *Driver, holder string) (call func(tool string, args map[string]any) (string, bool), release func()) {
	t.Helper()
	serial := d.Info().Serial
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), Platform()}})
	f.AddDriver("n1", d)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		e, ok := f.Gateway().Client.Device(serial)
		return ok && e.State == broker.StateOnline
	}, "%s online", serial)
	c := f.Client(holder)
	var held struct{ Lease struct{ Handle string } }
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": serial}), &held)
	call = func(tool string, args map[string]any) (string, bool) {
		args["serial"], args["lease"] = serial, held.Lease.Handle
		res := farmtest.Call(t, c, tool, args)
		return farmtest.Text(res), res.IsError
	}
	release = func() {
		farmtest.MustCall(t, c, "release_device", map[string]any{"serial": serial, "lease": held.Lease.Handle})
	}
	return call, release
}
