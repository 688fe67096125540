package tools

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
)

// PhysiClaw's screenshot is the phone's own; an arm rig's is its camera's frame, and its
// answer says so. A phone's screenshot says nothing of a camera. QA: an arm's screenshot was
// the camera's image, as peek's, with no word of it.
func TestArmScreenshotSaysItIsTheCameraFrame(t *testing.T) {
	tw, err := twin.Start(twin.Options{Seed: 7, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	reg := &driverCatcher{}
	stop, err := rig.ServeTwin(context.Background(), reg, tw, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(); _ = tw.Close() })
	deadline := time.Now().Add(2 * time.Minute)
	for reg.driver() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the twin's rig did not calibrate and join within 2 minutes")
		}
		time.Sleep(50 * time.Millisecond) // polling for the rig to join, not a wait for time to pass
	}
	res := mustRun(t, "screenshot", reg.driver(), `{}`)
	if msg, _ := res["message"].(string); msg != cameraFrameMessage {
		t.Errorf("an arm's screenshot says %q, want %q", msg, cameraFrameMessage)
	}
	res = mustRun(t, "screenshot", newFake(), `{}`)
	if msg, ok := res["message"]; ok {
		t.Errorf("a phone's screenshot says %q", msg)
	}
}
