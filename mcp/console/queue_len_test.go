package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A device busy with a call made without a lease shows who waits for it too: no lease tells
// the queue's length, the registry entry does.
func TestGridShowsTheQueueOfABusyDevice(t *testing.T) {
	f, base, serial, sleeper, waiter := busyWithAWaiter(t)
	farmtest.MustCall(t, f.Client("carol"), "abort_task", map[string]any{"serial": serial})
	<-sleeper
	if res := (<-waiter).Get(t); res.IsError {
		t.Fatalf("bob's call after the sleep: %s", farmtest.Text(res))
	}
	gridWhen(t, base, func(body string) bool { return strings.Contains(body, `"queue_len":0`) }, "no one waiting for "+serial)
}

// A device whose node was lost shows no one waiting and nothing running: its callers were all
// answered that the node was lost (QA: the grid kept "3 waiting" and the dead task until the
// node came back, for good if it never did).
func TestGridShowsNoQueueOnALostNode(t *testing.T) {
	f, base, serial, sleeper, waiter := busyWithAWaiter(t)
	f.KillNode("n1")
	<-sleeper
	<-waiter
	gridWhen(t, base, func(body string) bool {
		return strings.Contains(body, `"state":"offline"`) && !strings.Contains(body, `"queue_len":1`) && !strings.Contains(body, `"task"`)
	}, serial+" offline with no one waiting and nothing running")
}

// busyWithAWaiter starts a one-phone farm and its console, where alice's 60 s sleep runs on the
// phone and bob's home waits for it, as the grid shows; it returns both calls' answers to come.
func busyWithAWaiter(t *testing.T) (f *farmtest.Farm, base, serial string, sleeper, waiter <-chan farmtest.Answer) {
	f = farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	_, base = consoleOver(t, f, time.Minute)
	serial = f.Devices()[0].Serial
	sleeper = farmtest.Go(t, f.Client("alice"), "sleep", map[string]any{"serial": serial, "seconds": 60})
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateBusy
	}, serial+" busy with alice's sleep")
	waiter = farmtest.Go(t, f.Client("bob"), "home", map[string]any{"serial": serial, "wait_seconds": 60})
	gridWhen(t, base, func(body string) bool { return strings.Contains(body, `"queue_len":1`) }, "bob waiting for "+serial)
	return f, base, serial, sleeper, waiter
}
