package rig_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// A rig without a clipboard helper lacks it by how it is set up, not by its platform: its
// refusal sends the caller to the other rigs too (another one, with a helper, does it) and to
// the devices of other platforms that can. It said "nor by other arm devices", as if every rig
// shared what this one lacks.
func TestRigWithoutClipboardHelperNamesOtherRigs(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	serve := func(serial string, seed int64, helper bool) {
		tw, err := twin.Start(twin.Options{Seed: seed, Serial: serial, Speed: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tw.Close() })
		run := rig.ServeTwin
		if !helper {
			run = rig.ServeTwinWithoutClipboard
		}
		stop, err := run(t.Context(), f.NodeRegistry("n1"), tw, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
	const without, with = "arm-twin-bare", "arm-twin-helped"
	serve(without, 6, false)
	serve(with, 7, true)
	farmtest.Eventually(t, 3*time.Minute, func() bool {
		a, okA := f.Gateway().Client.Device(without)
		b, okB := f.Gateway().Client.Device(with)
		return okA && okB && a.State == broker.StateOnline && b.State == broker.StateOnline
	}, "both rigs calibrated and online")
	var phone string
	for _, d := range f.Devices() {
		if d.Platform == device.PlatformAndroid {
			phone = d.Serial
		}
	}

	res := farmtest.Call(t, f.Client("agent"), "send_to_clipboard", map[string]any{"serial": without, "text": "hello"})
	text := farmtest.Text(res)
	if !res.IsError {
		t.Fatalf("send_to_clipboard on a rig without a helper succeeded: %s", text)
	}
	if strings.Contains(text, "nor by other arm devices") {
		t.Errorf("the refusal says no rig can: %s", text)
	}
	for _, want := range []string{"refused (unsupported)", "as this device is set up", "the rig has no clipboard helper",
		"devices that can: " + phone + " (android, online)",
		"other arm devices, which can if theirs are set up for it: " + with + " (arm, online)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the refusal does not say %q: %s", want, text)
		}
	}
	// The rig it names does it.
	farmtest.MustCall(t, f.Client("agent"), "send_to_clipboard", map[string]any{"serial": with, "text": "hello"})
}
