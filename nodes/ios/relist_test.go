package ios

import (
	"errors"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/ios/iossim"
)

// usbmuxd killed and started again at once lists the phones only after its first device list,
// as a usbmuxd just started does: a phone missing from that list keeps its driver (and so its
// lease), with nothing sent under its old id meanwhile, and is back under its new id when
// listed; one never listed again is removed once usbmuxd has listed nothing for relistGrace.
// Before, both were removed at the first list ("device disconnected", the lease revoked).
func TestUsbmuxdListsPhonesAfterItsFirstList(t *testing.T) {
	sims, reg := simFarm(t, 2)
	ready(t, reg, "ios-sim-01")
	d2 := ready(t, reg, "ios-sim-02")
	addr := sims.Addr()
	if err := sims.Close(); err != nil { // kill -9
		t.Fatal(err)
	}
	host, err := iossim.Start(addr, nil) // started again on the same address, no phone yet
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Close() })
	eventually(t, 10*time.Second, func() bool {
		err, ok := reg.healthOf("ios-sim-02")
		return ok && errors.Is(err, ErrUnlisted)
	}, "ios-sim-02 kept, waiting for usbmuxd to list it")
	if _, err := d2.ForegroundApp(t.Context()); !errors.Is(err, ErrUnlisted) {
		t.Errorf("a call before usbmuxd lists the phone: %v", err)
	}
	listed := time.Now()
	host.Attach(sims.Devices()[1].Device)
	ready(t, reg, "ios-sim-02")
	if reg.driver("ios-sim-02") != d2 {
		t.Fatal("ios-sim-02's driver was replaced or removed")
	}
	if _, err := d2.ForegroundApp(t.Context()); err != nil {
		t.Fatalf("ios-sim-02 under its new id: %v", err)
	}
	eventually(t, 10*time.Second+relistGrace, func() bool {
		r, ok := reg.removedReason("ios-sim-01")
		return ok && r == RemovedReason
	}, "ios-sim-01, never listed again, removed")
	if took := time.Since(listed); took < relistGrace {
		t.Errorf("ios-sim-01 removed %s after usbmuxd listed a phone, within the grace of %s", took, relistGrace)
	}
	if reg.driver("ios-sim-02") != d2 {
		t.Error("ios-sim-02 went with it")
	}
}
