package main

import (
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Two corral runs of one principal with --gateway (QA: the second was refused in 3 ms with
// "You hold it ... pass your lease", a lease it never had): each connection is its own holder
// (Corral-Caller), so the second waits in the queue and gets the device when the first lets
// it go.
func TestTwoRunsOfOnePrincipalQueueAtTheGateway(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gw := f.Gateway().Client
	serial := gw.Devices()[0].Serial
	dial := func() *client.Client {
		none := ""
		c, err := tokenSource{file: &none}.dialGateway(t.Context(), f.Gateway().MCPURL, "corral-run")
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	first, second := dial(), dial()
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, first, "acquire_device", map[string]any{"serial": serial}), &held)
	answer := farmtest.Go(t, second, "acquire_device", map[string]any{"serial": serial, "wait_seconds": 60})
	handOver(t, gw, first, serial, held.Lease.Handle, answer, "the second run")
}

// handOver waits until the second caller's acquire_device (answer) waits in the queue of
// serial, the only device leased, then releases the first's lease (handle) and returns the
// second's answer: the device, within a minute. A second answered before it queued fails.
func handOver(t *testing.T, gw *broker.Client, first *client.Client, serial, handle string, answer <-chan farmtest.Answer, second string) *mcpgo.CallToolResult {
	t.Helper()
	farmtest.Eventually(t, 20*time.Second, func() bool {
		select {
		case a := <-answer:
			t.Fatalf("%s was answered instead of queueing: %s", second, farmtest.Text(a.Get(t)))
		default:
		}
		ls, err := gw.Leases(t.Context())
		return err == nil && len(ls) == 1 && ls[0].Serial == serial && ls[0].QueueLen == 1
	}, "%s's acquire_device waits in the queue of %s", second, serial)
	farmtest.MustCall(t, first, "release_device", map[string]any{"serial": serial, "lease": handle})
	var res *mcpgo.CallToolResult
	select {
	case a := <-answer:
		res = a.Get(t)
	case <-time.After(time.Minute):
		t.Fatalf("no answer to %s's acquire_device", second)
	}
	require.False(t, res.IsError, "%s did not get the device: %s", second, farmtest.Text(res))
	return res
}
