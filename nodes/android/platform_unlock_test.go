package android

import (
	"context"
	"encoding/json"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// The devices --sim-android starts unlock with no --passcodes, as the --sim phones do: the node
// knows the passcodes of the phones it simulates. A locked device of another adb server (a real
// phone, for all the node knows) with no passcode configured is refused as unconfigured, saying
// how to give one, not failed as the device's fault.
func TestSimulatedAndroidDevicesUnlockWithoutPasscodes(t *testing.T) {
	realServer := privateServer(t) // stands for the adb server of real phones
	realDev := startDevice(t)
	realServer.connect(t, realDev)

	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	a := Platform().Flags(fs)
	if err := fs.Parse([]string{"--adb", realServer.addr(), "--sim-android", "1", "--sim-android-input-startup", "0"}); err != nil {
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
	var simDrv, realDrv device.Driver
	for serial, d := range reg.drivers {
		if serial == realDev.Serial() {
			realDrv = d
		} else {
			simDrv = d
		}
	}
	reg.mu.Unlock()

	ops := tools.DefaultOpsWith(tools.OpsConfig{}) // no --passcodes
	run := func(d device.Driver, tool, args string) (tools.Output, error) {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return ops[tool].Run(ctx, &tools.Task{Driver: d, Args: json.RawMessage(args)})
	}
	for _, d := range []device.Driver{simDrv, realDrv} {
		if _, err := run(d, "press_button", `{"button":"POWER"}`); err != nil {
			t.Fatalf("locking %s: %v", d.Info().Serial, err)
		}
	}

	out, err := run(simDrv, "unlock_phone", `{}`)
	if err != nil {
		t.Fatalf("unlock_phone on the simulated %s: %v", simDrv.Info().Serial, err)
	}
	if res, _ := out.Data.(tools.UnlockResult); !res.Unlocked || !res.Verified || !res.PasscodeEntered {
		t.Fatalf("unlock_phone on the simulated %s: %+v", simDrv.Info().Serial, out.Data)
	}

	_, err = run(realDrv, "unlock_phone", `{}`)
	if code := tools.ErrorCode(err); code != broker.CodeUnconfigured {
		t.Fatalf("unlock_phone on %s with no passcode: code %q (%v), want %s", realDrv.Info().Serial, code, err, broker.CodeUnconfigured)
	}
	for _, want := range []string{"--passcodes", "CORRAL_PASSCODES", realDev.Serial() + `: "PASSCODE"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("unlock_phone's refusal does not say %q: %v", want, err)
		}
	}
}
