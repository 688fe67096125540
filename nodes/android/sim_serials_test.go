package android

import (
	"context"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/android/adbsim"
)

// A device given a name (WithSerialNames: --sim-android's, android-sim-<node>-01) is added
// under it, keeps its adb serial for adb -s (Extra adb_serial), and is removed under the name
// when it leaves the adb server: removed under its adb serial, the node would never take it
// off, and it would stay online, its calls failing.
func TestNamedDeviceIsAddedAndRemovedUnderItsName(t *testing.T) {
	server := privateServer(t)
	dev := startDevice(t)
	server.connect(t, dev)
	const name = "android-sim-n1-01"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := newRegistry()
	done := make(chan error, 1)
	go func() {
		done <- Attach(ctx, reg, server.addr(), nil, WithSerialNames(map[string]string{dev.Serial(): name}))
	}()
	defer func() { cancel(); <-done }()

	reg.waitFor(t, 20*time.Second, "the device added under its name", func(r *registry) bool { return r.drivers[name] != nil })
	reg.mu.Lock()
	info := reg.drivers[name].Info()
	reg.mu.Unlock()
	if info.Serial != name || info.Extra["adb_serial"] != dev.Serial() {
		t.Errorf("Info: serial %q, adb_serial %q; want %q, %q", info.Serial, info.Extra["adb_serial"], name, dev.Serial())
	}

	server.disconnect(dev)
	reg.waitFor(t, 20*time.Second, "the device removed under its name", func(r *registry) bool {
		_, removed := r.removed[name]
		return removed && r.drivers[name] == nil
	})
}

// Each node's simulated devices have names of their own, the same at every start with the
// same count, padded to its width.
func TestSimSerialsAreTheNodesAndPadded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	farm, err := adbsim.Start(ctx, 12, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = farm.Close() }()
	a, b := simSerials(namedNode{newRegistry(), "a"}, farm), simSerials(namedNode{newRegistry(), "b"}, farm)
	first := farm.Devices()[0].Serial()
	if a[first] != "android-sim-a-01" || b[first] != "android-sim-b-01" {
		t.Errorf("the first device: %q on node a, %q on node b; want android-sim-a-01, android-sim-b-01", a[first], b[first])
	}
	if last := farm.Devices()[11].Serial(); a[last] != "android-sim-a-12" {
		t.Errorf("the last device: %q, want android-sim-a-12", a[last])
	}
	if got := simSerials(newRegistry(), farm)[first]; got != "android-sim-01" {
		t.Errorf("a registry that is no node: %q, want android-sim-01", got)
	}
}

// namedNode is a registry with an id, as a node is.
type namedNode struct {
	*registry
	id string
}

func (n namedNode) ID() string { return n.id }
