package actors

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// causeDevice fails each task when its context ends with the error a driver gives: what it was
// doing, and context.Cause (the scheduler's deadline or abort), wrapped. started tells each
// such task's start.
type causeDevice struct {
	serial  string
	started chan string
}

func (d causeDevice) Info() broker.DeviceEntry {
	return broker.DeviceEntry{Serial: d.serial, Platform: "android"}
}

func (d causeDevice) Deadline(_ string, askedMS int64) (time.Duration, error) {
	if askedMS > 0 {
		return time.Duration(askedMS) * time.Millisecond, nil
	}
	return 10 * time.Second, nil
}

func (d causeDevice) Execute(ctx context.Context, req broker.TaskRequest, _ func(broker.Progress)) broker.TaskResult {
	if req.Tool == "noop" {
		return broker.TaskResult{Outcome: broker.OutcomeSucceeded}
	}
	d.started <- req.ID
	<-ctx.Done()
	err := fmt.Errorf("device %s: scale the image: %w", d.serial, context.Cause(ctx))
	return broker.TaskResult{Outcome: broker.OutcomeFailed, Error: err.Error()}
}

func (causeDevice) Health(context.Context) error { return nil }

// A task cut off by its deadline or an abort says the cause once, first, then what the
// driver said without it: a driver's error that wraps context.Cause ends with it. Before, a
// timeout read "deadline of 5ms passed; device d1: scale the image: deadline of 5ms passed".
func TestCancelledTaskSaysItsCauseOnce(t *testing.T) {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	t.Cleanup(sys.Shutdown)
	cfg := Config{Node: "n", Mirror: &recorder{}, Metrics: NewMetrics(prometheus.NewRegistry())}
	props, started := NewNodeSupervisorProps(NewSchedulerProps(cfg), cfg.Metrics, "n")
	sys.Root.Spawn(props)
	sched := <-started
	dev := causeDevice{serial: "d1", started: make(chan string, 2)}
	sys.Root.Send(sched, AddDevice{Device: dev})
	submit := func(req broker.TaskRequest) pending {
		p := make(pending, 1)
		req.Serial = "d1"
		sys.Root.Send(sched, SubmitTask{Req: req, Reply: func(r broker.TaskResult) { p <- r }})
		return p
	}
	require.Eventually(t, func() bool {
		return submit(broker.TaskRequest{ID: "probe", Tool: "noop"}).wait().Code != broker.CodeUnhealthy
	},
		5*time.Second, 5*time.Millisecond, "d1 never became healthy")

	r := submit(broker.TaskRequest{ID: "t1", Tool: "take_screenshot", TimeoutMS: 5}).wait()
	expect(t, r, broker.OutcomeTimedOut, "")
	assert.Equal(t, "deadline of 5ms passed; device d1: scale the image", r.Error)

	// Aborted while it runs (the device is checked after a timeout first: it waits for that).
	running := submit(broker.TaskRequest{ID: "t2", Tool: "take_screenshot", WaitMS: 5000})
	for id := ""; id != "t2"; {
		select {
		case id = <-dev.started:
		case <-time.After(10 * time.Second):
			t.Fatal("t2 never started")
		}
	}
	aborted := make(chan broker.AbortAnswer, 1)
	sys.Root.Send(sched, AbortTasks{Req: broker.AbortRequest{TaskID: "t2", By: "alice"}, Reply: func(a broker.AbortAnswer) { aborted <- a }})
	require.Equal(t, []string{"t2"}, (<-aborted).Aborted)
	r = running.wait()
	expect(t, r, broker.OutcomeAborted, "")
	assert.Equal(t, "aborted by alice; device d1: scale the image", r.Error)
}
