package test

import (
	"context"
	"image"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// buggyRig is a rig's real driver with a bug on demand: its next screenshot panics, which
// restarts its device's actor. It counts its health checks.
type buggyRig struct {
	*rig.Driver
	panicNext atomic.Bool
	checks    atomic.Int32
}

func (b *buggyRig) Screenshot(ctx context.Context) (image.Image, error) {
	if b.panicNext.CompareAndSwap(true, false) {
		panic("a bug in the driver")
	}
	return b.Driver.Screenshot(ctx)
}

func (b *buggyRig) Health(ctx context.Context) error {
	b.checks.Add(1)
	return b.Driver.Health(ctx)
}

// buggyRigFarm is a farm with the twin of a rig on n1, driven by a buggyRig.
func buggyRigFarm(t *testing.T) (*farmtest.Farm, *buggyRig, string) {
	t.Helper()
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw, err := twin.Start(twin.Options{Seed: 6, Speed: 4})
	require.NoError(t, err)
	t.Cleanup(func() { _ = tw.Close() })
	addr, err := tw.GRBL.ServeTCP("127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := grbl.DialTCP(ctx, addr, grbl.WithLinkTimeout(15*time.Second), grbl.WithReplyTimeout(15*time.Second))
	require.NoError(t, err)
	serial := tw.Phone.Info().Serial
	d, err := rig.New(rig.Config{Serial: serial}, c, tw.Camera, nil, nil)
	require.NoError(t, err)
	lo, hi := tw.RoughArea()
	_, err = d.CalibrateWith(ctx, tw, rig.Area{Min: lo, Max: hi}, nil)
	require.NoError(t, err)
	b := &buggyRig{Driver: d}
	f.AddDriver("n1", b) // the node closes it
	farmtest.Eventually(t, 20*time.Second, func() bool {
		dev, ok := f.Gateway().Client.Device(serial)
		return ok && dev.State == broker.StateOnline
	}, "the rig online")
	return f, b, serial
}

// A halted rig whose device's actor restarts (its driver panicked) fails the health check
// the restart runs, as it is halted: it still takes arm_recover, and is online after it.
// Without that, an unhealthy device refuses every task, arm_recover included, and nothing
// short of a node restart could bring the rig back.
func TestHaltedRigRecoversAfterItsActorRestarts(t *testing.T) {
	f, b, serial := buggyRigFarm(t)
	op := f.Client("operator")
	gw := f.Gateway().Client

	farmtest.MustCall(t, op, "emergency_stop", args("serial", serial))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		dev, _ := gw.Device(serial)
		return dev.State == broker.StateUnhealthy
	}, "the halted rig shown unhealthy")
	b.panicNext.Store(true)
	res := farmtest.Call(t, op, "screenshot", args("serial", serial))
	require.True(t, res.IsError, "the screenshot did not panic: %s", farmtest.Text(res))
	require.Contains(t, farmtest.Text(res), "panicked")
	// The restarted actor checks the rig, finds it halted, and checks again a second later:
	// by then the first answer is the scheduler's.
	checks := b.checks.Load()
	farmtest.Eventually(t, 20*time.Second, func() bool { return b.checks.Load() >= checks+2 }, "the restarted actor's health checks")
	dev, _ := gw.Device(serial)
	assert.Equal(t, broker.StateUnhealthy, dev.State)
	assert.Contains(t, dev.Reason, "arm_recover")

	farmtest.MustCall(t, op, "screenshot", args("serial", serial)) // a person judges it by its screen
	farmtest.MustCall(t, op, "arm_recover", args("serial", serial))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		dev, _ = gw.Device(serial)
		return dev.State == broker.StateOnline
	}, "the rig online after arm_recover")
	farmtest.MustCall(t, op, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
}
