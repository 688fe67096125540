package mcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// goCancellable is goCall whose call its caller may stop (cancel), as Ctrl-C does.
func goCancellable(t *testing.T, c *client.Client, tool, token string, args map[string]any) (<-chan *mcpgo.CallToolResult, context.CancelFunc) {
	out := make(chan *mcpgo.CallToolResult, 1)
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	req.Params.Meta = &mcpgo.Meta{ProgressToken: token}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	go func() {
		defer cancel()
		res, _ := c.CallTool(ctx, req) // a cancelled call ends in an error
		out <- res
	}()
	return out, cancel
}

// toldNext waits until a notification after the first from of got says want, while answer has
// not come, and returns how many got has by then: the next wait looks past them.
func toldNext(t *testing.T, got *notes, from int, want string, answer <-chan *mcpgo.CallToolResult) int {
	t.Helper()
	n := 0
	farmtest.Eventually(t, 20*time.Second, func() bool {
		require.Empty(t, answer, "the call ended while it should wait")
		ps := got.progress()
		n = len(ps)
		for _, p := range ps[min(from, n):] {
			if msg, _ := p["message"].(string); strings.Contains(msg, want) {
				return true
			}
		}
		return false
	}, "a notification saying %q", want)
	return n
}

// Calls waiting in one device's queue are each told their place, and their places move up as
// those ahead leave: one whose caller stops waiting drops out, and one that runs leaves the
// queue.
func TestWaitersAreToldTheirPlaceInLine(t *testing.T) {
	w := startWaitFarm(t, 1)
	holder, handle := w.hold(t)
	c1, got1 := w.client(t, "first")
	c2, got2 := w.client(t, "second")
	c3, got3 := w.client(t, "third")
	at := "waiting for device " + w.serial

	a1, stop1 := goCancellable(t, c1, "home", "p1", map[string]any{"serial": w.serial, "wait_seconds": 30})
	toldNext(t, got1, 0, at+" (1st in line, 1 waiting): held by anonymous (holder)", a1)
	// A sleep that runs until it is stopped: while it runs, the call behind it is first.
	a2, stop2 := goCancellable(t, c2, "sleep", "p2", map[string]any{"serial": w.serial, "seconds": 50, "wait_seconds": 30})
	toldNext(t, got2, 0, at+" (2nd in line, 2 waiting)", a2)
	a3 := goCall(t, c3, "home", "p3", map[string]any{"serial": w.serial, "wait_seconds": 30})
	n3 := toldNext(t, got3, 0, at+" (3rd in line, 3 waiting)", a3)

	stop1() // the first caller stops waiting: its task leaves the queue
	<-a1
	n2 := toldNext(t, got2, 0, at+" (1st in line, 2 waiting)", a2)
	n3 = toldNext(t, got3, n3, at+" (2nd in line, 2 waiting)", a3)

	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	// The sleep runs, and the third is first in line behind it.
	toldNext(t, got2, n2, "slept ", a2)
	toldNext(t, got3, n3, at+" (1st in line, 1 waiting): held by anonymous (second)", a3)
	stop2()
	<-a2
	res := answerOf(t, a3)
	require.False(t, res.IsError, farmtest.Text(res))
	requireIncreasing(t, got3.progress())
}

// acquire_device waiting in a queue is told its place too, found by its request's tag (its
// id, which withdraws it, is not shown); withdrawn, it drops out and the caller behind it moves
// up; granted, the call behind it waits first in line for the new lease.
func TestAcquireWaitIsToldItsPlaceInLine(t *testing.T) {
	w := startWaitFarm(t, 1)
	holder, handle := w.hold(t)
	c1, got1 := w.client(t, "first")
	c2, got2 := w.client(t, "second")
	c3, got3 := w.client(t, "third")
	at := "waiting for device " + w.serial

	a1, stop1 := goCancellable(t, c1, "acquire_device", "a1", map[string]any{"serial": w.serial, "wait_seconds": 30})
	toldNext(t, got1, 0, at+" (1st in line, 1 waiting): held by anonymous (holder)", a1)
	a2 := goCall(t, c2, "acquire_device", "a2", map[string]any{"serial": w.serial, "wait_seconds": 30})
	toldNext(t, got2, 0, at+" (2nd in line, 2 waiting)", a2)
	a3 := goCall(t, c3, "home", "a3", map[string]any{"serial": w.serial, "wait_seconds": 30})
	n3 := toldNext(t, got3, 0, at+" (3rd in line, 3 waiting)", a3)

	stop1() // withdrawn
	<-a1
	toldNext(t, got2, 0, at+" (1st in line, 2 waiting)", a2)
	n3 = toldNext(t, got3, n3, at+" (2nd in line, 2 waiting)", a3)

	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	var second mcp.AcquireResult
	farmtest.Structured(t, answerOf(t, a2), &second)
	toldNext(t, got3, n3, at+" (1st in line, 1 waiting): held by anonymous (second)", a3)
	farmtest.MustCall(t, c2, "release_device", map[string]any{"lease": second.Lease.Handle})
	res := answerOf(t, a3)
	require.False(t, res.IsError, farmtest.Text(res))
	for _, p := range got2.progress() {
		msg, _ := p["message"].(string)
		assert.NotContains(t, msg, "acq_", "a lease request's id is its asker's secret")
	}
}

// A group acquire (count) waiting for a member held by another is told its place in that
// device's queue too, found by the member request's id.
func TestGroupAcquireWaitIsToldItsPlaceInLine(t *testing.T) {
	w := startWaitFarm(t, 2)
	holder, handle := w.hold(t)
	c, got := w.client(t, "group")
	a := goCall(t, c, "acquire_device", "g1", map[string]any{"count": 2, "wait_seconds": 30})
	toldNext(t, got, 0, "waiting for device "+w.serial+" for a group of 2 (0 held) (1st in line, 1 waiting): held by anonymous (holder)", a)
	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	res := answerOf(t, a)
	require.False(t, res.IsError, farmtest.Text(res))
}
