package test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A call from the hub to an edge site's device keeps its caller for as long as it runs or
// waits: the site's node asks the hub gateway whether its caller is still there (a task
// waiting in the queue at its turn, a running one every second), and the gateway's probe
// subscription must reach the site. It did not (the site's leaf user may publish progress as
// its own nodes only, and the gateway listened for every node's at once), so the node heard no
// responders: a call that ran actors.DefaultCallerGoneAfter was aborted caller_gone, and one
// that waited in the queue was refused caller_gone at its turn.
func TestHubCallsToASiteKeepTheirCaller(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"site-a": {"n1"}}, PhonesPerNode: 1, Quiet: true})
	hubAgent, other := h.Client("hub-agent"), h.Client("hub-other")
	seconds := (actors.DefaultCallerGoneAfter + 2*actors.DefaultCallerCheckEvery).Seconds()
	slept := make(chan string, 1)
	go func() {
		res, err := farmtest.TryCall(t, hubAgent, "sleep", args("serial", "n1-p1", "seconds", seconds))
		if err == nil {
			slept <- farmtest.Text(res)
		} else {
			slept <- err.Error()
		}
	}()
	farmtest.Eventually(t, 30*time.Second, func() bool { return deviceState(h.Farm, "n1-p1") == broker.StateBusy }, "the sleep runs at site-a")
	// Queued behind the sleep, by another caller.
	if res := farmtest.Call(t, other, "tap_xy", args("serial", "n1-p1", "x", 0.5, "y", 0.5, "wait_seconds", 60)); res.IsError {
		t.Errorf("the tap queued behind the sleep at the site: %s", farmtest.Text(res))
	}
	if text := <-slept; !strings.Contains(text, "slept") {
		t.Errorf("the sleep at the site: %s", text)
	}
}
