package mcp_test

import (
	"crypto/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Two sessions of one principal and client (two corral run processes, two CI jobs with one
// token) are two holders: the second queues for the device the first holds and gets it when
// the first releases it; asked without waiting it hears that another session holds it, not
// "You hold it". The first session asking again is still told it holds it, at once, without
// queueing behind itself. Sessions are protocol sessions (revisions before 2026-07-28) or, in
// the revision without them, clients sending their own Corral-Caller header.
func TestSessionsOfOnePrincipalQueueForADevice(t *testing.T) {
	for _, kind := range []string{"protocol session", "Corral-Caller"} {
		t.Run(kind, func(t *testing.T) {
			f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
			first, second := callerClient(t, f, kind, "corral-run"), callerClient(t, f, kind, "corral-run")
			checkSessionsQueue(t, f, first, second)
		})
	}
}

// callerClient is an MCP client of the farm's gateway as name, in a session of its own of the
// kind given (see TestSessionsOfOnePrincipalQueueForADevice).
func callerClient(t *testing.T, f *farmtest.Farm, kind, name string) *client.Client {
	if kind == "protocol session" {
		return f.ClientWithProtocol(name, mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	}
	c, err := client.NewStreamableHttpClient(f.Gateway().MCPURL,
		transport.WithHTTPHeaders(map[string]string{mcp.CallerHeader: rand.Text()}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	return c
}

func checkSessionsQueue(t *testing.T, f *farmtest.Farm, first, second *client.Client) {
	t.Helper()
	gw := f.Gateway().Client
	serial := gw.Devices()[0].Serial
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, first, "acquire_device", map[string]any{"serial": serial}), &held)

	// The same session again: "You hold it", at once, even when it asks to wait.
	for _, a := range []map[string]any{{"serial": serial}, {"serial": serial, "wait_seconds": 20}} {
		start := time.Now()
		res := farmtest.Call(t, first, "acquire_device", a)
		text := farmtest.Text(res)
		require.True(t, res.IsError, "%v: leased twice: %s", a, text)
		assert.Contains(t, text, "You hold it", a)
		assert.NotContains(t, text, "another session", a)
		assert.Less(t, time.Since(start), 10*time.Second, "%v: waited on its own lease", a)
	}

	// The other session, without waiting: busy, held by another session of the same name.
	for _, call := range []struct {
		tool string
		args map[string]any
	}{{"acquire_device", map[string]any{"serial": serial}}, {"home", map[string]any{"serial": serial}}} {
		res := farmtest.Call(t, second, call.tool, call.args)
		text := farmtest.Text(res)
		require.True(t, res.IsError, "%s ran on another session's device: %s", call.tool, text)
		assert.NotContains(t, text, "You hold it", call.tool)
		assert.Contains(t, text, "Held by anonymous (corral-run)", call.tool)
		assert.Contains(t, text, "another session of anonymous (corral-run)", call.tool)
		assert.Contains(t, text, "wait_seconds", call.tool)
		assert.NotContains(t, text, held.Lease.Handle, call.tool)
	}

	// The other session, waiting: it queues, and gets the device when the first lets it go.
	answer := farmtest.Go(t, second, "acquire_device", map[string]any{"serial": serial, "wait_seconds": 60})
	farmtest.Eventually(t, 20*time.Second, queueLen(t, gw, serial, 1), "the second session waits in the queue of %s", serial)
	farmtest.MustCall(t, first, "release_device", map[string]any{"serial": serial, "lease": held.Lease.Handle})
	res := waitAnswer(t, answer)
	require.False(t, res.IsError, "the second session did not get the device: %s", farmtest.Text(res))
	var got mcp.AcquireResult
	farmtest.Structured(t, res, &got)
	assert.Equal(t, serial, got.Lease.Serial)
	assert.NotEqual(t, held.Lease.Handle, got.Lease.Handle)
	assert.Contains(t, got.Message, "after waiting")
	farmtest.MustCall(t, second, "home", map[string]any{"serial": serial, "lease": got.Lease.Handle})

	// Now the first is the other session: its call without a lease is busy, not "You hold it".
	text := farmtest.Text(farmtest.Call(t, first, "home", map[string]any{"serial": serial}))
	assert.NotContains(t, text, "You hold it")
	assert.Contains(t, text, "another session of anonymous (corral-run)")
}

// A pool: four sessions of one principal ask for any device of a platform, waiting, where
// three are free. The fourth waits in a queue (not refused at once as the caller's own
// devices) and gets the first device let go.
func TestSessionsOfOnePrincipalQueueForAPool(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true})
	gw := f.Gateway().Client
	ask := map[string]any{"platform": "android", "wait_seconds": 60}
	var clients []*client.Client
	var leases []mcp.LeaseInfo
	for range 3 {
		c := callerClient(t, f, "Corral-Caller", "corral-run")
		var got mcp.AcquireResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", ask), &got)
		clients, leases = append(clients, c), append(leases, got.Lease)
	}
	serials := []string{leases[0].Serial, leases[1].Serial, leases[2].Serial}
	slices.Sort(serials)
	require.Len(t, slices.Compact(serials), 3, "three sessions got the same device")

	fourth := callerClient(t, f, "Corral-Caller", "corral-run")
	answer := farmtest.Go(t, fourth, "acquire_device", ask)
	farmtest.Eventually(t, 20*time.Second, func() bool {
		ls, err := gw.Leases(t.Context())
		return err == nil && slices.ContainsFunc(ls, func(l broker.Lease) bool { return l.QueueLen == 1 })
	}, "the fourth session waits in a device's queue")
	let := slices.IndexFunc(leases, func(l mcp.LeaseInfo) bool { return queueLen(t, gw, l.Serial, 1)() })
	require.GreaterOrEqual(t, let, 0)
	farmtest.MustCall(t, clients[let], "release_device", map[string]any{"serial": leases[let].Serial, "lease": leases[let].Handle})
	res := waitAnswer(t, answer)
	require.False(t, res.IsError, "the fourth session did not get a device: %s", farmtest.Text(res))
	var got mcp.AcquireResult
	farmtest.Structured(t, res, &got)
	assert.Equal(t, leases[let].Serial, got.Lease.Serial)
}

// Two corral call processes without a gateway are two in-process sessions of one holder name
// (anonymous (corral-cli)): the second queues for the first's device too.
func TestInProcessCLISessionsQueueForADevice(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gw := f.Gateway().Client
	serial := gw.Devices()[0].Serial
	first, _ := inProcessCLI(t, gw)
	second, _ := inProcessCLI(t, gw)
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, first, "acquire_device", map[string]any{"serial": serial}), &held)
	answer := farmtest.Go(t, second, "acquire_device", map[string]any{"serial": serial, "wait_seconds": 60})
	farmtest.Eventually(t, 20*time.Second, queueLen(t, gw, serial, 1), "the second process waits in the queue of %s", serial)
	farmtest.MustCall(t, first, "release_device", map[string]any{"serial": serial, "lease": held.Lease.Handle})
	res := waitAnswer(t, answer)
	require.False(t, res.IsError, "the second process did not get the device: %s", farmtest.Text(res))
}

// A session's tag shows in refusals, never its id (a credential with the token).
func TestSessionTagIsShortAndNotTheID(t *testing.T) {
	id := "mcp-session-7c9e6679-7425-40de-944b-e07fc1f90ae7"
	tag := broker.SessionTag(id)
	assert.Len(t, tag, 10)
	assert.NotContains(t, id, tag)
	assert.Equal(t, tag, broker.SessionTag(id), "the tag is stable: every gateway of the session computes it")
	assert.NotEqual(t, tag, broker.SessionTag(id+"x"))
	assert.Empty(t, broker.SessionTag(""))
	assert.False(t, strings.Contains(tag, "mcp"))
}

// queueLen is a condition: serial's lease has n waiters.
func queueLen(t *testing.T, gw *broker.Client, serial string, n int) func() bool {
	return func() bool {
		ls, err := gw.Leases(t.Context())
		return err == nil && slices.ContainsFunc(ls, func(l broker.Lease) bool { return l.Serial == serial && l.QueueLen == n })
	}
}

// waitAnswer is the result of a call made with farmtest.Go, within a minute.
func waitAnswer(t *testing.T, answer <-chan farmtest.Answer) *mcpgo.CallToolResult {
	t.Helper()
	select {
	case a := <-answer:
		return a.Get(t)
	case <-time.After(time.Minute):
		t.Fatal("no answer to the waiting call")
	}
	return nil
}
