package rig_test

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// A swipe faster than the arm's finger can go takes longer, and its result says how long: an
// xxl (8 cm) swipe at speed fast (150 ms) on a rig whose finger goes at most 200 mm/s takes
// 0.4 s; it reported durationMs 150. A phone's swipe takes what was asked.
func TestArmSwipeReportsWhatItTook(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw := f.StartArmTwin("n1", 5, 4)
	c := f.Client("agent")
	swipe := func(serial string) tools.SwipeResult {
		var res tools.SwipeResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "swipe", map[string]any{"serial": serial, "bbox": []float64{0.4, 0.8, 0.6, 0.9},
			"direction": "up", "size": "xxl", "speed": "fast"}), &res)
		return res
	}
	arm := swipe(tw.Phone.Info().Serial)
	if arm.DurationMS < 380 || arm.DurationMS > 450 || !strings.Contains(arm.Message, "at the device's top speed") {
		t.Errorf("an 8 cm swipe at 200 mm/s reads durationMs %d, %q; want about 400 and why", arm.DurationMS, arm.Message)
	}
	var phone string
	for _, d := range f.Devices() {
		if d.Platform == device.PlatformAndroid {
			phone = d.Serial
		}
	}
	if got := swipe(phone); got.DurationMS != 150 || strings.Contains(got.Message, "top speed") {
		t.Errorf("a phone's fast swipe reads durationMs %d, %q; want 150", got.DurationMS, got.Message)
	}
}
