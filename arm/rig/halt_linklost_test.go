package rig

import (
	"context"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A halted rig whose link is lost is not told recovered: its halt is kept and it comes back
// halted. Its node logged "device recovered from its halt" as the link went.
func TestHaltedRigLosingItsLinkIsNotToldRecovered(t *testing.T) {
	r := startRig(t, 4, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stop := device.Stop{By: "alice", At: time.Now().UTC()}
	if err := r.d.Halt(ctx, stop); err != nil {
		t.Fatal(err)
	}
	r.tw.GRBL.Disconnect()
	select {
	case <-r.d.arm.Done():
	case <-ctx.Done():
		t.Fatal("the link was not lost")
	}
	if got, known := r.d.haltReason(stop.Reason()); known {
		t.Errorf("with its link lost the halted rig tells %q; want nothing told (offline, its halt kept)", got)
	}
}
