package mcp_test

import (
	"context"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Progress while a call waits, on a real farm, through a gateway of its own that tells a
// waiting call every 50 ms (mcp.Options.ProgressEvery) over real streamable HTTP.

const tellEvery = 50 * time.Millisecond

// waitFarm is a one-phone farm and a gateway over it that tells waiting calls every tellEvery.
type waitFarm struct {
	f      *farmtest.Farm
	serial string
	url    string
}

func startWaitFarm(t *testing.T, phones int) *waitFarm {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: phones, Quiet: true})
	_, url, _ := wireGateway(t, f)
	return &waitFarm{f: f, serial: f.Devices()[0].Serial, url: url}
}

// notes are the notifications/progress a client got, in order.
type notes struct {
	mu   sync.Mutex
	all  []mcpgo.JSONRPCNotification
	logs int // notifications/message
}

func (n *notes) progress() []map[string]any {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []map[string]any
	for _, x := range n.all {
		out = append(out, x.Params.AdditionalFields)
	}
	return out
}

func (n *notes) logCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.logs
}

// client connects name to the farm's waiting gateway and records its notifications.
func (w *waitFarm) client(t *testing.T, name string) (*client.Client, *notes) {
	c, err := client.NewStreamableHttpClient(w.url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	n := &notes{}
	c.OnNotification(func(x mcpgo.JSONRPCNotification) {
		n.mu.Lock()
		defer n.mu.Unlock()
		switch x.Method {
		case string(mcpgo.MethodNotificationProgress):
			n.all = append(n.all, x)
		case string(mcpgo.MethodNotificationMessage):
			n.logs++
		}
	})
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	return c, n
}

// goCall calls tool in the background, with a progress token unless token is "".
func goCall(t *testing.T, c *client.Client, tool, token string, args map[string]any) <-chan *mcpgo.CallToolResult {
	out := make(chan *mcpgo.CallToolResult, 1)
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	if token != "" {
		req.Params.Meta = &mcpgo.Meta{ProgressToken: token}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	go func() {
		defer cancel()
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Errorf("%s: %v", tool, err)
		}
		out <- res
	}()
	return out
}

// hold has a client named holder acquire serial, and returns the client and the lease handle.
func (w *waitFarm) hold(t *testing.T) (*client.Client, string) {
	c, _ := w.client(t, "holder")
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": w.serial}), &held)
	return c, held.Lease.Handle
}

// waitingNotes waits until n waiting notifications have come while answer has not, and
// returns them.
func waitingNotes(t *testing.T, got *notes, n int, answer <-chan *mcpgo.CallToolResult) []map[string]any {
	t.Helper()
	farmtest.Eventually(t, 20*time.Second, func() bool {
		require.Empty(t, answer, "the call ended while it should wait")
		return len(got.progress()) >= n
	}, "%d waiting notifications", n)
	return got.progress()
}

func answerOf(t *testing.T, answer <-chan *mcpgo.CallToolResult) *mcpgo.CallToolResult {
	t.Helper()
	select {
	case res := <-answer:
		require.NotNil(t, res)
		return res
	case <-time.After(30 * time.Second):
		t.Fatal("no answer")
		return nil
	}
}

// requireIncreasing checks the spec's rule: every progress value above the one before.
func requireIncreasing(t *testing.T, ps []map[string]any) {
	t.Helper()
	last := -1.0
	for i, p := range ps {
		v, ok := p["progress"].(float64)
		require.True(t, ok, "notification %d has no progress: %v", i, p)
		require.Greater(t, v, last, "progress does not increase at notification %d of %v", i, ps)
		last = v
	}
}

// noTicker waits until no goroutine of the waiting notifications is left.
func noTicker(t *testing.T) {
	t.Helper()
	farmtest.Eventually(t, 5*time.Second, func() bool {
		buf := make([]byte, 1<<20)
		return !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "(*callProgress).tick")
	}, "the waiting notifications' goroutine ended with the call")
}

// A device tool queued behind another caller's lease is told, while it waits, that it waits
// for that device and who holds it; the notifications come while it waits (the response is a
// stream at once), increase, and stop with its answer.
func TestQueuedCallIsToldWhatItWaitsFor(t *testing.T) {
	w := startWaitFarm(t, 1)
	holder, handle := w.hold(t)
	c, got := w.client(t, "waiter")

	answer := goCall(t, c, "home", "home-1", map[string]any{"serial": w.serial, "wait_seconds": 30})
	ps := waitingNotes(t, got, 3, answer)
	for _, p := range ps {
		msg, _ := p["message"].(string)
		// Its place once the registry shows the queue (queue_place_test.go).
		assert.Regexp(t, `^waiting for device `+w.serial+`( \(1st in line, 1 waiting\))?: held by anonymous \(holder\)`, msg)
		assert.Contains(t, msg, "s of 30s")
		assert.Equal(t, "home-1", p["progressToken"])
		assert.NotContains(t, p, "total", "a wait has no total")
	}
	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	res := answerOf(t, answer)
	require.False(t, res.IsError, farmtest.Text(res))
	requireIncreasing(t, got.progress())
	noTicker(t)
}

// acquire_device waiting in a busy device's queue is told the same, with how many waited
// ahead of it.
func TestAcquireWaitIsToldWhatItWaitsFor(t *testing.T) {
	w := startWaitFarm(t, 1)
	holder, handle := w.hold(t)
	c, got := w.client(t, "waiter")

	answer := goCall(t, c, "acquire_device", "acq-1", map[string]any{"serial": w.serial, "wait_seconds": 30})
	ps := waitingNotes(t, got, 3, answer)
	msg, _ := ps[len(ps)-1]["message"].(string)
	assert.Regexp(t, `^waiting for device `+w.serial+`( \(1st in line, 1 waiting\))?: held by anonymous \(holder\), at most until `, msg)
	assert.Contains(t, msg, "0 ahead of this call when it queued")
	assert.Contains(t, msg, "s of 30s")
	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	res := answerOf(t, answer)
	var out mcp.AcquireResult
	farmtest.Structured(t, res, &out)
	assert.Equal(t, w.serial, out.Lease.Serial)
	requireIncreasing(t, got.progress())
	noTicker(t)
}

// A call without a progress token is told nothing while it waits, neither progress nor
// logging messages, while a call with one waiting beside it is told several times.
func TestWaitWithoutProgressTokenIsQuiet(t *testing.T) {
	w := startWaitFarm(t, 1)
	holder, handle := w.hold(t)
	quiet, quietGot := w.client(t, "quiet")
	loud, loudGot := w.client(t, "loud")
	level := mcpgo.SetLevelRequest{}
	level.Params.Level = mcpgo.LoggingLevelDebug // it would take logging messages if there were any
	require.NoError(t, quiet.SetLevel(t.Context(), level))

	quietAnswer := goCall(t, quiet, "home", "", map[string]any{"serial": w.serial, "wait_seconds": 30})
	loudAnswer := goCall(t, loud, "home", "loud-1", map[string]any{"serial": w.serial, "wait_seconds": 30})
	waitingNotes(t, loudGot, 4, loudAnswer) // several intervals have passed for both
	require.Empty(t, quietAnswer)
	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	require.False(t, answerOf(t, quietAnswer).IsError)
	require.False(t, answerOf(t, loudAnswer).IsError)
	assert.Empty(t, quietGot.progress(), "progress without a progress token")
	assert.Zero(t, quietGot.logCount(), "logging messages for a wait")
}

// A sleep that first waits in the queue and then reports its own progress: one strictly
// increasing sequence, waiting notifications first, then the sleep's with its own values and
// total.
func TestWaitingThenTaskProgressIncreases(t *testing.T) {
	w := startWaitFarm(t, 1)
	holder, handle := w.hold(t)
	c, got := w.client(t, "waiter")

	answer := goCall(t, c, "sleep", "sleep-1", map[string]any{"serial": w.serial, "seconds": 0.5, "wait_seconds": 30})
	waitingNotes(t, got, 2, answer)
	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	res := answerOf(t, answer)
	require.False(t, res.IsError, farmtest.Text(res))

	ps := got.progress()
	requireIncreasing(t, ps)
	var waiting, slept []map[string]any
	for _, p := range ps {
		msg, _ := p["message"].(string)
		switch {
		case strings.HasPrefix(msg, "waiting for device "+w.serial):
			require.Empty(t, slept, "a waiting notification after the sleep's own: %v", ps)
			waiting = append(waiting, p)
		case strings.HasPrefix(msg, "slept "):
			slept = append(slept, p)
		}
	}
	require.GreaterOrEqual(t, len(waiting), 2, "%v", ps)
	require.NotEmpty(t, slept, "the sleep's own progress: %v", ps)
	// The sleep's values go out as its node sent them: its first is far above the waiting ones.
	// (Its last, progress == total, may cross with its answer and then is not sent.)
	for _, p := range slept {
		assert.Equal(t, 0.5, p["total"], "the sleep's total: %v", p)
		assert.LessOrEqual(t, p["progress"], 0.5, "the sleep's progress: %v", p)
	}
	noTicker(t)
}

// acquire_device with count waits in a member's queue and is told so, naming the group.
func TestGroupAcquireWaitIsToldWhatItWaitsFor(t *testing.T) {
	w := startWaitFarm(t, 2)
	holder, handle := w.hold(t)
	c, got := w.client(t, "waiter")

	answer := goCall(t, c, "acquire_device", "grp-1", map[string]any{"count": 2, "wait_seconds": 30})
	ps := waitingNotes(t, got, 3, answer)
	msg, _ := ps[len(ps)-1]["message"].(string)
	// Its place in line once the registry shows it (TestGroupAcquireWaitIsToldItsPlaceInLine).
	assert.Regexp(t, regexp.QuoteMeta("waiting for device "+w.serial+" for a group of 2 (0 held)")+
		`( \(1st in line, 1 waiting\))?`+regexp.QuoteMeta(": held by anonymous (holder)"), msg)
	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": handle})
	var out mcp.AcquireResult
	farmtest.Structured(t, answerOf(t, answer), &out)
	require.NotNil(t, out.Group, out.Message)
	requireIncreasing(t, got.progress())
	noTicker(t)
}
