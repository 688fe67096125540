package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// unlock_phone on a rig that cannot wake the phone (halted here, its phone's screen dark) says
// why in the rig's words, once, with what to do: it said "waking the screen: WAKEUP: …; MENU:
// …", though an arm has no MENU key (QA).
func TestUnlockPhoneOnAHaltedArmSaysOneReason(t *testing.T) {
	arm, tw := twinRigOf(t, 6)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := tw.Sleep(ctx); err != nil { // a dark screen: waking it takes a tap
		t.Fatal(err)
	}
	if err := arm.(device.Halter).Halt(ctx, device.Stop{By: "alice", At: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	_, err := runOp(t, "unlock_phone", arm, `{}`)
	if err == nil {
		t.Fatal("unlock_phone on a halted rig succeeded")
	}
	msg := err.Error()
	t.Logf("unlock_phone on a halted rig: %s", msg)
	if strings.Contains(msg, "MENU") || !strings.Contains(msg, "halted") || !strings.Contains(msg, "arm_recover") {
		t.Fatalf("unlock_phone on a halted rig: %q; want the halt and arm_recover, once, and no MENU", msg)
	}
}
