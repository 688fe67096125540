package mcp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A device call without the lease, asking to wait, on a device its caller holds is told "You
// hold it ... pass your lease" at once: it waited in the device's queue for its own lease to
// end, until its wait ran out. Another session of the same principal and client still queues
// with wait_seconds, and runs when the lease ends.
func TestACallWithoutItsLeaseDoesNotWaitOnItself(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gw := f.Gateway().Client
	serial := f.Devices()[0].Serial
	first, second := callerClient(t, f, "Corral-Caller", "corral-run"), callerClient(t, f, "Corral-Caller", "corral-run")
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, first, "acquire_device", map[string]any{"serial": serial}), &held)

	start := time.Now()
	res := farmtest.Call(t, first, "home", map[string]any{"serial": serial, "wait_seconds": 30})
	text := farmtest.Text(res)
	require.True(t, res.IsError, "ran without the lease: %s", text)
	assert.Contains(t, text, "You hold it")
	assert.Contains(t, text, "pass your lease")
	assert.Less(t, time.Since(start), 10*time.Second, "waited on its own lease: %s", text)

	answer := farmtest.Go(t, second, "home", map[string]any{"serial": serial, "wait_seconds": 60})
	farmtest.Eventually(t, 20*time.Second, queueLen(t, gw, serial, 1), "the other session's call waits in the queue of %s", serial)
	farmtest.MustCall(t, first, "release_device", map[string]any{"serial": serial, "lease": held.Lease.Handle})
	res = waitAnswer(t, answer)
	require.False(t, res.IsError, "the other session's call did not run: %s", farmtest.Text(res))
}

// acquire_device with count > 1 and wait_seconds, where a matching device is the caller's own,
// does not wait in that device's queue for its own lease to end: it is no candidate, and with
// too few others the answer comes at once, saying the caller holds it.
func TestAGroupDoesNotWaitOnItsCallersOwnDevice(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	c := callerClient(t, f, "Corral-Caller", "corral-run")
	serial := f.Devices()[0].Serial
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": serial}), &held)

	start := time.Now()
	res := farmtest.Call(t, c, "acquire_device", map[string]any{"count": 2, "wait_seconds": 20})
	text := farmtest.Text(res)
	require.True(t, res.IsError, "a group with the caller's own device: %s", text)
	assert.Contains(t, text, "You hold it")
	assert.Contains(t, text, "Nothing is held")
	assert.Less(t, time.Since(start), 10*time.Second, "waited on its own lease: %s", text)

	// The device it held is still its own, and the other one free again.
	farmtest.MustCall(t, c, "home", map[string]any{"serial": serial, "lease": held.Lease.Handle})
	farmtest.Eventually(t, 10*time.Second, func() bool {
		for _, d := range f.Devices() {
			if d.Serial != serial && d.State != "online" {
				return false
			}
		}
		return true
	}, "the other device is free again")
}
