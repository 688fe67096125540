package test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A caller that gives up waiting in acquire_device (its call cancelled) leaves nothing held:
// its request leaves the device's queue at once, and when the holder releases, the device is
// free, list_leases is empty and a third caller gets it (docs/tools.md).
func TestAcquireWaiterGoneLeavesNothingHeld(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	gw := f.Gateway().Client
	q1, q2, q3 := f.Client("q1"), f.Client("q2"), f.Client("q3")
	held := acquire(t, q1, args("serial", serial))
	queued := func(n int) func() bool {
		return func() bool {
			ls, err := gw.Leases(t.Context())
			return err == nil && len(ls) == 1 && ls[0].QueueLen == n
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "acquire_device", args("serial", serial, "wait_seconds", 30)
		_, err := q2.CallTool(ctx, req)
		done <- err
	}()
	farmtest.Eventually(t, 10*time.Second, queued(1), "q2 waits in the queue of %s", serial)
	cancel()
	require.Error(t, <-done, "the cancelled call answered")
	farmtest.Eventually(t, 10*time.Second, queued(0), "q2's request left the queue when q2 went away")

	farmtest.MustCall(t, q1, "release_device", args("lease", held.Lease.Handle))
	var list mcp.LeasesResult
	farmtest.Structured(t, farmtest.MustCall(t, q3, "list_leases", nil), &list)
	assert.Empty(t, list.Leases, "a lease is held after its holder released and the waiter went away")
	d, _ := gw.Device(serial)
	farmtest.Eventually(t, 10*time.Second, func() bool { d, _ = gw.Device(serial); return d.State == broker.StateOnline },
		"%s is free (%s, held by %q)", serial, d.State, d.Holder)
	got := acquire(t, q3, args("serial", serial))
	assert.Equal(t, serial, got.Lease.Serial)
}

// acquire_device's count is 1 to 20: 0 and negatives are refused with the same words as 21,
// and lease nothing; no count at all is one device.
func TestAcquireCountBounds(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	c := f.Client("agent")
	for _, n := range []int{0, -1, 21} {
		res := farmtest.Call(t, c, "acquire_device", args("count", n))
		require.True(t, res.IsError, "count %d leased: %s", n, farmtest.Text(res))
		contains(t, farmtest.Text(res), "count must be between 1 and 20")
	}
	ls, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	require.Empty(t, ls, "a refused count leased a device")
	acquire(t, c, nil)
}

// A caller whose connection died while it waited (its gateway killed with it): the node's grant
// finds no one listening, and the lease is released at once instead of being held by no one
// until its idle expiry.
func TestGrantToADeadCallerIsReleased(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	gw := f.Gateway().Client
	held := acquire(t, f.Client("q1"), args("serial", serial))
	d, _ := gw.Device(serial)

	// A gateway of its own: it asks to wait for the device, then its connection drops.
	dead, err := nats.Connect(f.URL)
	require.NoError(t, err)
	inbox := nats.NewInbox()
	_, err = dead.SubscribeSync(inbox)
	require.NoError(t, err)
	data, err := json.Marshal(broker.AcquireRequest{V: broker.WireVersion, Serial: serial, ID: "acq_deadcaller",
		Holder: broker.Holder{Principal: broker.Anonymous, Client: "dead"}, WaitMS: 30_000})
	require.NoError(t, err)
	require.NoError(t, dead.PublishRequest(fmt.Sprintf(broker.NodeGroupT, d.Node)+"."+broker.EndpointAcquire, inbox, data))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		ls, err := gw.Leases(t.Context())
		return err == nil && len(ls) == 1 && ls[0].QueueLen == 1
	}, "the dead caller waits in the queue")
	dead.Close()
	probe, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer probe.Close()
	farmtest.Eventually(t, 10*time.Second, func() bool {
		_, err := probe.Request(inbox, nil, time.Second)
		return errors.Is(err, nats.ErrNoResponders)
	}, "the server forgot the dead caller's inbox")

	farmtest.MustCall(t, f.Client("q1"), "release_device", args("lease", held.Lease.Handle))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		ls, err := gw.Leases(t.Context())
		return err == nil && len(ls) == 0
	}, "the lease granted to the dead caller is still held")
	acquire(t, f.Client("q3"), args("serial", serial))
}
