package android

import (
	"context"
	"flag"
	"slices"
	"testing"
	"time"
)

// The devices --sim-android starts carry the tag "sim", as the --sim phones and --sim-ios
// iPhones do (callers filter on it; a restarted node removes the entries of those it no longer
// has); the devices of the adb server --adb names do not: they are real phones.
func TestSimulatedAndroidDevicesAreTaggedSim(t *testing.T) {
	realServer := privateServer(t) // stands for the adb server of real phones
	realDev := startDevice(t)
	realServer.connect(t, realDev)

	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	a := Platform().Flags(fs)
	if err := fs.Parse([]string{"--adb", realServer.addr(), "--sim-android", "1"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := newRegistry()
	stop, err := a.Attach(ctx, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	reg.waitFor(t, 20*time.Second, "both devices attached", func(r *registry) bool { return len(r.drivers) == 2 })

	reg.mu.Lock()
	defer reg.mu.Unlock()
	for serial, d := range reg.drivers {
		tags := d.Info().Tags
		if serial == realDev.Serial() {
			if len(tags) != 0 {
				t.Errorf("the real adb server's device %s has tags %q, want none", serial, tags)
			}
			continue
		}
		if !slices.Contains(tags, "sim") {
			t.Errorf("the simulated device %s has tags %q, want sim", serial, tags)
		}
	}
}
