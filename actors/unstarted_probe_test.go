package actors

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
)

// A task whose deadline passes while its caller is asked whether it still listens never
// reached the driver: it times out, but the device it never touched is not checked for it,
// and the next task runs at once.
func TestTimeoutWhileTheCallerIsAskedChecksNoDevice(t *testing.T) {
	dev := newRig(t, "d1")
	var checks atomic.Int32
	dev.health = func(context.Context) error { checks.Add(1); return nil }
	f := newFarm(t, Config{CallerListens: func(ctx context.Context, _ broker.TaskRequest) bool {
		<-ctx.Done() // a caller's gateway that does not answer before the task's deadline
		return true
	}}, dev)
	f.waitState("d1", broker.StateOnline)

	first := f.submit(broker.TaskRequest{ID: "first", Serial: "d1", Tool: "block"})
	pollUntil(t, dev.isRunning, "the first task never started")
	asked := f.submit(broker.TaskRequest{ID: "asked", Serial: "d1", Tool: "noop", WaitMS: 60_000, TimeoutMS: 50, Probe: "p"})
	before := checks.Load()
	dev.finish(t)
	expect(t, first.wait(), broker.OutcomeSucceeded, "")
	res := asked.wait()
	expect(t, res, broker.OutcomeTimedOut, "")
	assert.True(t, res.Started.IsZero(), "the record of a task the driver never got shows a start: %s", res.Started)
	expect(t, f.submit(broker.TaskRequest{ID: "next", Serial: "d1", Tool: "noop"}).wait(), broker.OutcomeSucceeded, "")
	assert.Equal(t, before, checks.Load(), "health checks after a task that timed out before its driver got it")
}
