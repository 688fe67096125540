package nodes_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// QA's U1: a node's link to NATS is cut while it runs a sleep and a tap waits in the device's
// queue. The farm declares the node lost and the tap's caller is told so; the sleep ends while
// the link is still cut, and the tap's turn comes. Its caller cannot be asked (the question
// goes nowhere), and the tap ran anyway: a caller who retried elsewhere got it done twice.
// Now the node, silent, holds the tap until its link answers again, then runs it only if its
// caller still waits: it does not, so the tap is refused, its record showing no start, and
// nothing reached the phone.
func TestQueuedTaskDoesNotRunWhileTheNodeIsCutOff(t *testing.T) {
	const serial = "n1-a"
	var link *stallLink
	rig := startSilenceRig(t, func(server string) string { link = startStallLink(t, server); return link.addr() }, serial)
	ctx, gw, said, phone := rig.ctx, rig.gw, rig.said, rig.phones[serial]

	sleepID, tapID := broker.NewTaskID(), broker.NewTaskID()
	slept := make(chan error, 1)
	go func() {
		_, err := gw.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: sleepID, Serial: serial, Tool: "sleep",
			Args: json.RawMessage(`{"seconds":4}`), Holder: broker.Holder{Principal: "first"}}, nil)
		slept <- err
	}()
	farmtest.Eventually(t, 15*time.Second, func() bool {
		d, _ := gw.Device(serial)
		return d.Task != nil && d.Task.ID == sleepID
	}, "the sleep runs on %s", serial)
	tapped := make(chan error, 1)
	go func() {
		res, err := gw.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: tapID, Serial: serial, Tool: "tap_xy",
			Args: json.RawMessage(`{"x":0.5,"y":0.5}`), Holder: broker.Holder{Principal: "second"}, WaitMS: 60_000}, nil)
		if err == nil {
			t.Logf("the tap's caller was answered %s %s", res.Outcome, res.Code)
		}
		tapped <- err
	}()
	farmtest.Eventually(t, 15*time.Second, func() bool { d, _ := gw.Device(serial); return d.Queued > 0 }, "the tap queued behind the sleep")
	before := slices.Clone(phone.InputLog())

	link.hold()
	for _, answered := range []chan error{slept, tapped} {
		select {
		case err := <-answered:
			require.ErrorIs(t, err, broker.ErrNodeLost)
		case <-time.After(30 * time.Second):
			t.Fatal("a caller of the cut-off node is still waiting")
		}
	}
	// The sleep ends while the link is cut, and the tap's turn comes: held, or run.
	// The tap's own line: the running sleep's caller check is held the same way, and says so
	// with the sleep's id.
	heldTap := func() bool {
		for l := range strings.Lines(said.String()) {
			if strings.Contains(l, "its caller cannot be asked") && strings.Contains(l, "task="+tapID) {
				return true
			}
		}
		return false
	}
	farmtest.Eventually(t, 30*time.Second, func() bool {
		return heldTap() || !slices.Equal(before, phone.InputLog())
	}, "the tap's turn came while the node was cut off")
	require.Equal(t, before, phone.InputLog(), "the tap reached the phone while its node was cut off, its caller told the node was lost")
	link.release()

	var rec broker.TaskResult
	farmtest.Eventually(t, 30*time.Second, func() bool {
		var err error
		rec, err = gw.TaskRecord(ctx, tapID)
		return err == nil
	}, "the tap's record")
	t.Logf("the tap's record: %s %s: %s", rec.Outcome, rec.Code, rec.Error)
	assert.Equal(t, broker.OutcomeRefused, rec.Outcome, "%s: %s", rec.Code, rec.Error)
	assert.Contains(t, []string{broker.CodeNodeLost, broker.CodeCallerGone}, rec.Code, rec.Error)
	assert.True(t, rec.Started.IsZero(), "the record shows a start: %s", rec.Started)
	assert.Contains(t, rec.Error, "tap_xy did not run")
	assert.Contains(t, rec.Error, "node n1 ", "the record blames its caller, not the node's silence")
	assert.Equal(t, before, phone.InputLog(), "what reached the phone")
}
