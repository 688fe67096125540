package nodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A task queued behind a lease whose caller's connection is gone when its turn comes (its
// gateway killed) does not run: its record says its caller left, nothing reached the phone, and
// the next waiter, whose caller still listens, gets the device and runs. With NATS auth, as
// `corral up` runs it: the node asks where it may publish (the task's progress subject).
func TestQueuedTaskOfAGoneCallerDoesNotRun(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true})
	serial := f.Devices()[0].Serial
	phone := f.Phone(serial)
	gw := f.Gateway().Client
	ctx := t.Context()
	held, err := gw.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: broker.Holder{Principal: "holder"}})
	require.NoError(t, err)
	require.True(t, held.OK, "lease: %s", held.Error)

	// The caller that goes: a gateway of its own, which dies while its task waits.
	gone, goneNC := gatewayClient(t, f, "gone")
	tap := func(x, y float64) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"x":%g,"y":%g}`, x, y)) }
	goneID, liveID := broker.NewTaskID(), broker.NewTaskID()
	goneDone := make(chan error, 1)
	go func() {
		_, err := gone.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: goneID, Serial: serial, Tool: "tap_xy", Args: tap(0.1, 0.1),
			Holder: broker.Holder{Principal: "agent", Client: "gone"}, WaitMS: 60_000}, nil)
		goneDone <- err
	}()
	queued := func(n int) func() bool {
		return func() bool {
			ls, err := gw.Leases(ctx)
			return err == nil && len(ls) == 1 && ls[0].QueueLen == n
		}
	}
	farmtest.Eventually(t, 10*time.Second, queued(1), "the first caller waits in the queue of %s", serial)
	// The caller that stays, behind it.
	type answer struct {
		res broker.TaskResult
		err error
	}
	liveDone := make(chan answer, 1)
	go func() {
		res, err := gw.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: liveID, Serial: serial, Tool: "tap_xy", Args: tap(0.9, 0.9),
			Holder: broker.Holder{Principal: "agent", Client: "live"}, WaitMS: 60_000}, nil)
		liveDone <- answer{res, err}
	}()
	farmtest.Eventually(t, 10*time.Second, queued(2), "the second caller waits in the queue of %s", serial)

	require.Equal(t, 2, probeListeners(t, f), "the two callers' connections listen for probes")
	goneNC.Close()
	require.Error(t, <-goneDone, "the gone caller's call answered")
	farmtest.Eventually(t, 10*time.Second, func() bool { return probeListeners(t, f) == 1 }, "the server forgot the gone caller's subscription")
	taps := slices.Clone(phone.InputLog())

	rel, err := gw.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Handle: held.Lease.Handle, By: "holder"})
	require.NoError(t, err)
	require.True(t, rel.OK, "release: %s", rel.Error)

	var live answer
	select {
	case live = <-liveDone:
	case <-time.After(30 * time.Second):
		t.Fatal("the waiting caller still waits after the release")
	}
	require.NoError(t, live.err)
	assert.Equal(t, broker.OutcomeSucceeded, live.res.Outcome, "the caller still there: %s %s", live.res.Code, live.res.Error)

	var rec broker.TaskResult
	farmtest.Eventually(t, 10*time.Second, func() bool {
		rec, err = gw.TaskRecord(ctx, goneID)
		return err == nil
	}, "the record of the gone caller's task")
	assert.Equal(t, broker.OutcomeRefused, rec.Outcome)
	assert.Equal(t, broker.CodeCallerGone, rec.Code)
	assert.Contains(t, rec.Error, "caller left before it could start")
	assert.True(t, rec.Started.IsZero(), "the record shows a start: %s", rec.Started)

	newTaps := phone.InputLog()[len(taps):]
	var x, y int
	require.Len(t, newTaps, 1, "one tap reached the phone: %q", newTaps)
	_, err = fmt.Sscanf(newTaps[0], "tap %d %d", &x, &y)
	require.NoError(t, err, "%q", newTaps[0])
	assert.Greater(t, x, 540, "the tap that reached the phone is the gone caller's (at 0.1, 0.1): %q", newTaps[0])
	d, _ := gw.Device(serial)
	farmtest.Eventually(t, 10*time.Second, func() bool { d, _ = gw.Device(serial); return d.State == broker.StateOnline },
		"%s is free (%s, held by %q)", serial, d.State, d.Holder)
}

// gatewayClient is a farm client on a NATS connection of its own, as a second gateway's.
func gatewayClient(t *testing.T, f *farmtest.Farm, name string) (*broker.Client, *nats.Conn) {
	t.Helper()
	return gatewayClientVia(t, f, name, nil)
}

// gatewayClientVia is gatewayClient over a connection through via (nil: the farm's server),
// a test's wrapper of the server that shapes what goes through.
func gatewayClientVia(t *testing.T, f *farmtest.Farm, name string, via nats.InProcessConnProvider) (*broker.Client, *nats.Conn) {
	t.Helper()
	opts := f.Connect(broker.UserName(broker.RoleGateway, ""), name)
	opts.InProcess = via
	nc, err := broker.Connect(opts, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	c, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(ctx), "client %s ready", name)
	return c, nc
}

// probeListeners counts the subscriptions of gateways' connections to their nodes' probes
// (broker.TaskRequest.Probe).
func probeListeners(t *testing.T, f *farmtest.Farm) int {
	t.Helper()
	subs, err := f.NATS.Subsz(&server.SubszOptions{Subscriptions: true, Limit: 1 << 20})
	require.NoError(t, err)
	progress, _, _ := strings.Cut(fmt.Sprintf(broker.ProgressT, "NODE", ""), "NODE")
	n := 0
	for _, s := range subs.Subs {
		// <progress><node>.c_<token>, one a node the connection called
		rest, ok := strings.CutPrefix(s.Subject, progress)
		if _, token, _ := strings.Cut(rest, "."); ok && strings.HasPrefix(token, "c_") {
			n++
		}
	}
	return n
}
