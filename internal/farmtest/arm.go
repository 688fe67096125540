package farmtest

import (
	"sync"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// StartArmTwin puts the digital twin of an arm rig, drawn by seed, on node id with its gantry
// running speed times faster than real time, and waits until the rig has calibrated and is
// online. The twin's phone shows what the finger did (Phone.InputLog).
func (f *Farm) StartArmTwin(id string, seed int64, speed float64) *twin.Twin {
	f.t.Helper()
	tw, err := twin.Start(twin.Options{Seed: seed, Speed: speed, Log: f.log})
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = tw.Close() })
	f.ServeArmTwin(id, tw)
	return tw
}

// ServeArmTwin drives tw as a rig of node id and waits until it is online; stop takes it off
// the node (the test's end does too), after which tw can be served again.
func (f *Farm) ServeArmTwin(id string, tw *twin.Twin) (stop func()) {
	f.t.Helper()
	return f.ServeArmTwinAs(id, tw, broker.StateOnline)
}

// ServeArmTwinAs is ServeArmTwin waiting for the rig to show state instead (a rig that comes
// back halted shows unhealthy).
func (f *Farm) ServeArmTwinAs(id string, tw *twin.Twin, state string) (stop func()) {
	f.t.Helper()
	n := f.node(id)
	st, err := rig.ServeTwin(f.ctx, n, tw, f.log)
	if err != nil {
		f.t.Fatal(err)
	}
	stop = sync.OnceFunc(st)
	f.t.Cleanup(stop)
	serial := tw.Phone.Info().Serial
	// A rig's first serve calibrates it, drawing camera frames: 54 s under -race at load 24
	// (0.05 s once the farm keeps its calibration).
	Eventually(f.t, 3*time.Minute, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.State == state && d.Node == id
	}, "the arm twin "+serial+" served and "+state+" on "+id)
	return stop
}

// NodeRegistry is node id as a platform's Attach is given it: where a rigs file's rigs join.
func (f *Farm) NodeRegistry(id string) device.Registry {
	f.t.Helper()
	return f.node(id)
}
