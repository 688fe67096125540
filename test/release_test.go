package test

import (
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// heldLease is the lease acquire_device returns.
type heldLease struct {
	Handle string `json:"handle"`
	Holder string `json:"holder"`
	Epoch  uint64 `json:"epoch"`
}

// leaseDevice calls acquire_device and returns the lease it grants.
func leaseDevice(t *testing.T, c *client.Client, a map[string]any) heldLease {
	t.Helper()
	var out struct {
		Lease heldLease `json:"lease"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", a), &out)
	require.NotEmpty(t, out.Lease.Handle, "acquire_device gave no handle")
	return out.Lease
}

// Through the MCP front door, a client releasing a device with a handle that is not the
// current lease's — a forged one, or the holder's handle from an earlier grant of the device —
// gets an error, and the holder keeps the device: its calls run, the waiter stays queued, the
// epoch stands. The holder's own release hands the device to the waiter.
func TestReleaseDeviceWithAnotherHandleIsRefused(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	alice, bob, carol := f.Client("alice"), f.Client("bob"), f.Client("carol")
	gw := f.Gateway().Client

	old := leaseDevice(t, alice, args("serial", serial))
	farmtest.MustCall(t, alice, "release_device", args("serial", serial, "lease", old.Handle))
	cur := leaseDevice(t, alice, args("serial", serial))
	require.Greater(t, cur.Epoch, old.Epoch)
	require.Contains(t, cur.Holder, "alice")

	// Carol queues for the device (off the test's goroutine: the call answers once she has it).
	granted := make(chan *mcpgo.CallToolResult, 1)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "acquire_device", args("serial", serial, "wait_seconds", 60)
		res, err := carol.CallTool(t.Context(), req)
		if err != nil {
			res = mcpgo.NewToolResultError("protocol error: " + err.Error())
		}
		granted <- res
	}()
	var queued broker.Lease
	farmtest.Eventually(t, 10*time.Second, func() bool {
		leases, err := gw.Leases(t.Context())
		if err != nil || len(leases) != 1 || leases[0].QueueLen != 1 {
			return false
		}
		queued = leases[0]
		return true
	}, "carol is queued behind alice")

	for _, c := range []struct{ name, handle string }{
		{"forged", broker.NewLeaseHandle()},
		{"alice's old handle", old.Handle},
	} {
		res := farmtest.Call(t, bob, "release_device", args("serial", serial, "lease", c.handle))
		text := farmtest.Text(res)
		require.True(t, res.IsError, "%s: bob released alice's lease: %s", c.name, text)
		assert.Contains(t, text, broker.CodeStaleLease, c.name)
		assert.NotContains(t, text, cur.Handle, "%s: the refusal leaks alice's handle", c.name)

		// Alice keeps the device, under the same epoch, and carol still waits.
		farmtest.MustCall(t, alice, "get_screen_size", args("serial", serial, "lease", cur.Handle))
		leases, err := gw.Leases(t.Context())
		require.NoError(t, err)
		require.Len(t, leases, 1, c.name)
		assert.Contains(t, leases[0].Holder.String(), "alice", c.name)
		assert.Equal(t, cur.Epoch, leases[0].Epoch, "%s: the epoch moved", c.name)
		assert.Equal(t, 1, leases[0].QueueLen, "%s: carol left the queue", c.name)
		assert.False(t, leases[0].ExpiresAt.Before(queued.ExpiresAt), "%s: the expiry moved back", c.name)
		select {
		case res := <-granted:
			t.Fatalf("%s: carol was granted the device alice holds: %s", c.name, farmtest.Text(res))
		default:
		}
		busy := farmtest.Call(t, bob, "get_screen_size", args("serial", serial))
		require.True(t, busy.IsError, "%s: bob ran a call on alice's device", c.name)
		contains(t, farmtest.Text(busy), "busy", "alice")
	}

	// Alice's own release hands the device to carol at once.
	farmtest.MustCall(t, alice, "release_device", args("serial", serial, "lease", cur.Handle))
	var next heldLease
	select {
	case res := <-granted:
		require.False(t, res.IsError, "carol's acquire: %s", farmtest.Text(res))
		var out struct {
			Lease heldLease `json:"lease"`
		}
		farmtest.Structured(t, res, &out)
		next = out.Lease
	case <-time.After(10 * time.Second):
		t.Fatal("carol did not get the device after alice released it")
	}
	assert.Contains(t, next.Holder, "carol")
	assert.Greater(t, next.Epoch, cur.Epoch)

	// Alice's last handle is old now: in bob's hands it releases nothing either.
	res := farmtest.Call(t, bob, "release_device", args("serial", serial, "lease", cur.Handle))
	require.True(t, res.IsError, "bob released carol's lease with alice's old handle: %s", farmtest.Text(res))
	assert.True(t, strings.Contains(farmtest.Text(res), broker.CodeStaleLease), farmtest.Text(res))
	farmtest.MustCall(t, carol, "get_screen_size", args("serial", serial, "lease", next.Handle))
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := gw.Device(serial)
		return d.State == broker.StateLeased && strings.Contains(d.Holder, "carol")
	}, "the registry shows carol holding %s", serial)
}
