package android

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/tools"
)

// The drag tool on an Android phone says the hold the phone saw: the driver adds no hold the
// answer leaves out. It said "drag holds 500ms first" where the phone was held 600 ms.
func TestDragToolSaysTheHoldThePhoneSaw(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n := len(dev.Phone().InputLog())
	out, err := tools.DefaultOps()["drag"].Run(ctx, &tools.Task{Driver: d,
		Args: []byte(`{"from_x":0.5,"from_y":0.75,"to_x":0.5,"to_y":0.25,"duration":300}`)})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := out.Data.(tools.DragResult)
	m := regexp.MustCompile(`for a long press \((\d+ms)\)`).FindStringSubmatch(res.Message)
	if m == nil {
		t.Fatalf("drag's message %q does not say its hold", res.Message)
	}
	said, _ := time.ParseDuration(m[1])
	var held time.Duration
	var hold string
	line := lastInput(t, dev, n)
	if re := regexp.MustCompile(`^swipe .* hold=(\S+)$`).FindStringSubmatch(line); re != nil {
		hold = re[1]
	}
	held, _ = time.ParseDuration(hold)
	if said < dragHold || held < said {
		t.Errorf("drag said it held %v; the driver holds at least %v, and the phone saw %q", said, dragHold, line)
	}
}
