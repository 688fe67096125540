package mcp

import (
	"context"
	"crypto/rand"
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// A caller waiting in a device's queue is told its place, as the node's registry entry lists
// the waiters in the order it will serve them (broker.DeviceEntry.Queue). The entry lags the
// node by up to a quarter second, and lists only the first broker.MaxQueueShown: a caller it
// does not list is told nothing of its place rather than something wrong.

// placeText is " (2nd in line, 4 waiting)" for the waiter id in d's queue; "" when d does not
// list it.
func placeText(d broker.DeviceEntry, id string) string {
	n := broker.QueuePlace(d, id)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s in line, %d waiting)", ordinal(n), max(d.Queued, len(d.Queue)))
}

// ordinal is 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, …, 21st.
func ordinal(n int) string {
	suffix := "th"
	switch n % 10 {
	case 1:
		suffix = "st"
	case 2:
		suffix = "nd"
	case 3:
		suffix = "rd"
	}
	if n%100 >= 11 && n%100 <= 13 {
		suffix = "th"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// newRequestID names a lease request, so that its asker finds its place in the queue by the
// request's tag (broker.RequestTag); the farm client withdraws the request by it too.
func newRequestID() string { return "acq_" + rand.Text() }

// deviceQueued is the device whose registry entry lists task id waiting in its queue, with the
// task's place there, if the caller may see that device.
func (g *Gateway) deviceQueued(ctx context.Context, id string) (broker.DeviceEntry, int, bool) {
	for _, d := range g.farm.Devices() {
		if n := broker.QueuePlace(d, id); n > 0 && g.mayUseSerial(ctx, d.Serial) {
			return d, n, true
		}
	}
	return broker.DeviceEntry{}, 0, false
}

// leftQueueText answers an abort_task of task id that the registry shows waiting in device d's
// queue, at place, and that no node aborted: its node was lost, and it never started; or the
// task left the queue as the abort came (the registry lags its node by up to a quarter second).
func leftQueueText(id string, d broker.DeviceEntry, place int) string {
	if d.State == broker.StateOffline {
		return fmt.Sprintf("Task %s %s: it never started, and there is nothing to abort. %s.", id, waitedAtLostNode(d, place), lostWaiterRecord(d))
	}
	return fmt.Sprintf("Task %s left device %s's queue as the abort came: nothing to abort. get_task_result {\"taskId\": %q} "+
		"shows how it ended once its record is written.", id, d.Serial, id)
}

// waitedAtLostNode says where a task that never started waited, in the queue of device d gone
// offline with its node: "was waiting in device X's queue (2nd in line) when the device went
// offline (REASON)".
func waitedAtLostNode(d broker.DeviceEntry, place int) string {
	return fmt.Sprintf("was waiting in device %s's queue (%s in line) when the device went offline (%s)", d.Serial, ordinal(place), d.Reason)
}

// lostWaiterRecord says what record such a task may get.
func lostWaiterRecord(d broker.DeviceEntry) string {
	return fmt.Sprintf("Its node %s records it as lost if it comes back (a node that restarted keeps no record of a task it never started)", d.Node)
}
