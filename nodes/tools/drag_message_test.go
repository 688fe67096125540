package tools

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// drag's message says the hold it asked, which is the one the Android driver holds
// (device.DragHold): it said "drag holds 500ms first" where Android held 600 ms.
func TestDragMessageSaysTheHold(t *testing.T) {
	d, _ := swiper()
	res := mustRun(t, "drag", d, `{"from_x":0.5,"from_y":0.8,"to_x":0.5,"to_y":0.2}`)
	msg, _ := res["message"].(string)
	for _, want := range []string{"in 1000ms", "for a long press (600ms)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("drag's message %q does not say %q", msg, want)
		}
	}
}

// drag's duration is milliseconds, as the seed has it, where every other duration is seconds:
// one under 10 ms is a unit mistake, refused with the milliseconds meant. It dragged "in 0.5ms".
func TestDragRefusesSecondsForMilliseconds(t *testing.T) {
	d, calls := swiper()
	for _, c := range []struct{ dur, want string }{{"0.5", "0.5 looks like seconds: give 500"}, {"0.3", "give 300"}, {"2", "give 2000"}} {
		_, err := runOp(t, "drag", d, `{"from_x":0.5,"from_y":0.8,"to_x":0.5,"to_y":0.2,"duration":`+c.dur+`}`)
		wantCode(t, err, broker.CodeBadInput)
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "milliseconds") {
			t.Errorf("duration %s: %v, want it to say %q", c.dur, err, c.want)
		}
	}
	if len(*calls) != 0 {
		t.Fatalf("a refused drag moved: %+v", *calls)
	}
	res := mustRun(t, "drag", d, `{"from_x":0.5,"from_y":0.8,"to_x":0.5,"to_y":0.2,"duration":10}`)
	if msg, _ := res["message"].(string); !strings.Contains(msg, "in 10ms") {
		t.Errorf("a 10 ms drag: %q", msg)
	}
}

// A drag faster than an arm's finger can go takes longer, and drag says so as swipe does: it
// said "in 100ms" of a full-screen drag the finger took over half a second to make. A phone's
// drag takes what was asked. The hold reads as drag's own, not as asked by the caller.
func TestDragSaysWhatTheMoveTook(t *testing.T) {
	arm, _ := twinRigOf(t, 5)
	const args = `{"from_x":0.1,"from_y":0.1,"to_x":0.9,"to_y":0.9,"duration":100}`
	res := mustRun(t, "drag", arm, args)
	msg, _ := res["message"].(string)
	took, _ := res["durationMs"].(float64)
	if !strings.Contains(msg, "in 100ms asked; took ") || !strings.Contains(msg, "at the device's top speed") || took <= 100 {
		t.Errorf("a fast full-screen drag on an arm reads durationMs %v, %q; want what it took, and why", took, msg)
	}
	if strings.Contains(msg, "600ms asked") {
		t.Errorf("drag's own hold reads as the caller's: %q", msg)
	}
	d, _ := swiper()
	res = mustRun(t, "drag", d, args)
	msg, _ = res["message"].(string)
	if took, _ := res["durationMs"].(float64); took != 100 || strings.Contains(msg, "top speed") {
		t.Errorf("a phone's drag reads durationMs %v, %q; want 100", took, msg)
	}
}
