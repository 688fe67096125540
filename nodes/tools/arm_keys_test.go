package tools

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/nodes/device"
)

// driverCatcher is a node's registry as far as a rig needs one: it keeps the driver added, and
// why the last one was removed.
type driverCatcher struct {
	mu  sync.Mutex
	d   device.Driver
	why string
}

func (c *driverCatcher) AddDriver(d device.Driver) { c.mu.Lock(); c.d = d; c.mu.Unlock() }
func (c *driverCatcher) RemoveDevice(_, why string) {
	c.mu.Lock()
	c.d, c.why = nil, why
	c.mu.Unlock()
}
func (c *driverCatcher) driver() device.Driver { c.mu.Lock(); defer c.mu.Unlock(); return c.d }
func (c *driverCatcher) removed() string       { c.mu.Lock(); defer c.mu.Unlock(); return c.why }

// An arm has no HOME or BACK button: its finger makes the iPhone's edge swipes, and the key
// tools say so rather than "pressed HOME" / "pressed BACK" (docs/arm.md). A digital twin's rig,
// calibrated, with its phone telling the gestures it got.
func TestArmKeyToolsSayTheGesture(t *testing.T) {
	d, tw := twinRigOf(t, 5)
	for _, c := range []struct{ tool, args, key, want string }{
		{"home_screen", `{}`, "HOME", "swiped up from the bottom edge"},
		{"home", `{}`, "HOME", "swiped up from the bottom edge"},
		{"go_back", `{}`, "BACK", "swiped right from the left edge"},
		{"back", `{}`, "BACK", "swiped right from the left edge"},
		{"press_button", `{"button":"BACK"}`, "BACK", "swiped right from the left edge"},
	} {
		n := len(tw.Phone.InputLog())
		res := mustRun(t, c.tool, d, c.args)
		msg, _ := res["message"].(string)
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "pressed") {
			t.Errorf("%s on an arm: message %q, want the gesture (%q)", c.tool, msg, c.want)
		}
		got := waitInputs(t, tw, n)
		if !strings.HasPrefix(got[len(got)-1], "key "+c.key) {
			t.Errorf("%s: the phone got %q, want key %s", c.tool, got, c.key)
		}
	}
}

// waitInputs waits for the twin's phone to log more than n inputs and returns the new ones.
func waitInputs(t *testing.T, tw *twin.Twin, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if l := tw.Phone.InputLog(); len(l) > n {
			return l[n:]
		}
		if time.Now().After(deadline) {
			t.Fatal("the phone under the arm got no input within 10 s")
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline
	}
}
