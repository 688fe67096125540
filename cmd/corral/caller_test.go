package main

import (
	"slices"
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
	farmtest.Eventually(t, 20*time.Second, func() bool {
		ls, err := gw.Leases(t.Context())
		return err == nil && slices.ContainsFunc(ls, func(l broker.Lease) bool { return l.Serial == serial && l.QueueLen == 1 })
	}, "the second run waits in the queue of %s", serial)
	farmtest.MustCall(t, first, "release_device", map[string]any{"serial": serial, "lease": held.Lease.Handle})
	var res *mcpgo.CallToolResult
	select {
	case a := <-answer:
		res = a.Get(t)
	case <-time.After(time.Minute):
		t.Fatal("no answer to the second run's acquire_device")
	}
	require.False(t, res.IsError, "the second run did not get the device: %s", farmtest.Text(res))
}
