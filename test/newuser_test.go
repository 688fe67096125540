package test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/sim"
)

// What a new user tripped on (issue 9): each test here failed before its fix.

// The README's and the architecture page's introductions say what exists today: every platform
// Corral drives (Android phones, iPhones, browsers, arm rigs), the simulated devices, and
// nothing planned as if it were there.
func TestDocsSayWhatExists(t *testing.T) {
	// Every platform Corral has a driver for, as a newcomer reads it.
	platforms := map[string]*regexp.Regexp{"android": regexp.MustCompile(`Android`), "ios": regexp.MustCompile(`iPhone|\biOS\b`),
		"web": regexp.MustCompile(`(?i)browser`), "arm": regexp.MustCompile(`(?i)\barm\b|robotic-arm`)}
	for _, file := range []string{"../README.md", "../docs/architecture.md"} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		intro := introduction(string(b))
		assert.Contains(t, intro, "simulated", "%s: the introduction does not mention the simulated devices", file)
		for name, re := range platforms {
			assert.Regexp(t, re, intro, "%s: the introduction does not name platform %s, which Corral drives", file, name)
		}
		assert.NotRegexp(t, `planned|not built yet`, intro, "%s: the introduction calls something planned that every platform now has a driver for", file)
	}
}

// introduction returns a Markdown page's text between its title and its first section.
func introduction(page string) string {
	_, rest, _ := strings.Cut(page, "\n")
	intro, _, _ := strings.Cut(rest, "\n## ")
	if i := strings.Index(intro, "\n```"); i >= 0 {
		intro = intro[:i]
	}
	return strings.Join(strings.Fields(intro), " ")
}

// logLines returns the records whose message contains msg, as "LEVEL message attrs".
func logLines(r *logtest.Recorder, msg string) []string {
	var out []string
	for _, rec := range r.Records() {
		if !strings.Contains(rec.Message, msg) {
			continue
		}
		line := rec.Level.String() + " " + rec.Message
		rec.Attrs(func(a slog.Attr) bool {
			line += " " + a.String()
			return true
		})
		out = append(out, line)
	}
	return out
}

// A device disconnected during a task stops its actor; the task's worker and grace timer then
// report to no one. That is expected: logged at DEBUG, never as an INFO [DeadLetter] line. The
// phone's driver is stuck in a tap that ignores cancellation (as an adb call on a dead link
// may), so both reports surely come after the actor stopped: a driver that returned at once
// could beat the grace timer's arming, and then there is nothing late to log.
func TestDisconnectLogsNoDeadLetter(t *testing.T) {
	logs := &logtest.Recorder{}
	log := slog.New(logs)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "node-n1"}, log)
	require.NoError(t, err)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	n, err := nodes.Start(t.Context(), nodes.Config{ID: "n1", NC: nc, Stores: stores, Grace: time.Second,
		Metrics: actors.NewMetrics(prometheus.NewRegistry()), Log: log})
	require.NoError(t, err)
	t.Cleanup(n.Stop)
	phone := sim.New("n1-p1")
	t.Cleanup(func() { _ = phone.Close() })
	n.AddDriver(unclosable{phone})

	cnc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "gateway"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(cnc.Close)
	farm, err := broker.NewClient(t.Context(), cnc, stores, broker.ClientOptions{Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	require.NoError(t, farm.WaitReady(t.Context()))
	state := func(want string) func() bool {
		return func() bool { d, ok := farm.Device("n1-p1"); return ok && d.State == want }
	}
	require.Eventually(t, state(broker.StateOnline), 10*time.Second, 10*time.Millisecond, "n1-p1 online")

	phone.HangNext()
	answer := make(chan broker.TaskResult, 1)
	id := broker.NewTaskID()
	go func() {
		res, err := farm.Run(context.Background(), broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: "n1-p1",
			Tool: "tap_xy", Args: json.RawMessage(`{"x":0.5,"y":0.5}`)}, nil)
		if err != nil {
			res.Error = err.Error()
		}
		answer <- res
	}()
	require.Eventually(t, state(broker.StateBusy), 10*time.Second, 10*time.Millisecond, "n1-p1 busy with the tap")
	n.RemoveDevice("n1-p1", "device disconnected")
	select {
	case res := <-answer:
		assert.Equal(t, broker.CodeDisconnected, res.Code, "the tap's answer: %+v", res)
	case <-time.After(10 * time.Second):
		t.Fatal("the tap was not answered within 10s of the disconnect")
	}
	late := func(report, what string) {
		t.Helper()
		if !assert.Eventually(t, func() bool {
			return slices.ContainsFunc(logLines(logs, "device actor already stopped"), func(l string) bool {
				return strings.HasPrefix(l, "DEBUG ") && strings.Contains(l, report)
			})
		}, 10*time.Second, 10*time.Millisecond, what) {
			t.Fatalf("dead letters logged: %v", logLines(logs, "DeadLetter"))
		}
	}
	// The grace timer fires a second after the cancel; then the driver is let go.
	late("grace of task "+id+" over", "the late grace timer is logged at DEBUG")
	require.NoError(t, phone.Close())
	late("task "+id+" ended", "the stuck driver's late return is logged at DEBUG")
	assert.Empty(t, logLines(logs, "[DeadLetter]"), "dead letters logged by protoactor")
}

// unclosable is a phone the node cannot close when it removes it: its stuck tap returns only
// when the test closes the phone itself.
type unclosable struct{ *sim.Phone }

func (unclosable) Close() error { return nil }

// A device busy with a task run without a lease says so in the busy answer: the task, since
// when, its own deadline (here the caller's timeout_ms, not the lease's or the tool's maximum)
// and how many wait; a leased device names its holder, the lease's expiry and the running task.
func TestBusyAnswerSaysWhatIsKnown(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
	sleeper, tapper, waiter := f.Client("sleeper"), f.Client("tapper"), f.Client("waiter")
	busy := func(serial string) func() bool {
		return func() bool {
			return slices.ContainsFunc(f.Devices(), func(d broker.DeviceEntry) bool { return d.Serial == serial && d.State == broker.StateBusy })
		}
	}
	tap := func(serial string) string {
		res := farmtest.Call(t, tapper, "tap_xy", args("serial", serial, "x", 0.5, "y", 0.5))
		require.True(t, res.IsError, "tap_xy on busy %s succeeded: %s", serial, farmtest.Text(res))
		return farmtest.Text(res)
	}

	sleeping := farmtest.Go(t, sleeper, "sleep", args("serial", "n1-p1", "seconds", 120, "timeout_ms", 30000))
	require.Eventually(t, busy("n1-p1"), 10*time.Second, 10*time.Millisecond, "n1-p1 busy with the sleep")
	text := tap("n1-p1")
	assert.Contains(t, text, "Running sleep for anonymous (sleeper) since ")
	assert.Contains(t, text, "without a lease")
	assert.NotContains(t, text, "Held by")
	m := regexp.MustCompile(`by its deadline \S+Z \(in (\d+)s\) at the latest; 0 waiting\.`).FindStringSubmatch(text)
	require.NotNil(t, m, "the busy answer does not give the task's deadline and the queue: %s", text)
	in, _ := strconv.Atoi(m[1])
	assert.LessOrEqual(t, in, 30, "the deadline is not the task's own 30 s: %s", text)

	queued := farmtest.Go(t, waiter, "tap_xy", args("serial", "n1-p1", "x", 0.5, "y", 0.5, "wait_seconds", 60))
	require.Eventually(t, func() bool { return strings.Contains(tap("n1-p1"), "; 1 waiting.") }, 10*time.Second, 20*time.Millisecond,
		"the busy answer counts the waiting caller")
	farmtest.MustCall(t, tapper, "abort_task", args("serial", "n1-p1"))
	assert.True(t, (<-sleeping).Get(t).IsError, "the aborted sleep succeeded")
	res := (<-queued).Get(t)
	assert.False(t, res.IsError, "the queued tap: %s", farmtest.Text(res))

	l := acquire(t, sleeper, args("serial", "n1-p2"))
	sleeping = farmtest.Go(t, sleeper, "sleep", args("serial", "n1-p2", "lease", l.Lease.Handle, "seconds", 120))
	require.Eventually(t, busy("n1-p2"), 10*time.Second, 10*time.Millisecond, "n1-p2 busy with the leased sleep")
	text = tap("n1-p2")
	assert.Regexp(t, `Held by anonymous \(sleeper\) until \S+Z \(in \d+m?\d*s\), at most until \S+Z; running sleep for about (\d+m)?\d+s more; 0 waiting\.`, text)
	farmtest.MustCall(t, sleeper, "abort_task", args("serial", "n1-p2"))
	<-sleeping
}

// release_device needs only what the caller has: a lease handle in a fresh session (the farm
// knows its device), or nothing after select_device (the session's device and lease). The
// handle never comes back in an answer.
func TestReleaseDeviceDefaults(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
	held := func(c *client.Client) []string {
		var list struct{ Leases []struct{ Serial string } }
		farmtest.Structured(t, farmtest.MustCall(t, c, "list_leases", nil), &list)
		var serials []string
		for _, l := range list.Leases {
			serials = append(serials, l.Serial)
		}
		return serials
	}

	l := acquire(t, f.Client("acquirer"), args("serial", "n1-p1"))
	fresh := f.ClientWithProtocol("fresh", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // a session that selected nothing
	res := farmtest.Call(t, fresh, "release_device", args("lease", l.Lease.Handle))
	require.False(t, res.IsError, "release_device by lease alone in a fresh session: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "n1-p1")
	assert.NotContains(t, farmtest.Text(res), l.Lease.Handle, "the answer repeats the handle")
	assert.Empty(t, held(fresh), "the lease is still held")

	res = farmtest.Call(t, fresh, "release_device", args("lease", l.Lease.Handle))
	require.True(t, res.IsError, "a released handle was released again")
	assert.NotContains(t, farmtest.Text(res), l.Lease.Handle, "the answer repeats the handle")

	selector := f.ClientWithProtocol("selector", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // sessions remember a selection
	farmtest.MustCall(t, selector, "select_device", args("serial", "n1-p2"))
	assert.Equal(t, []string{"n1-p2"}, held(selector))
	res = farmtest.Call(t, selector, "release_device", map[string]any{})
	require.False(t, res.IsError, "release_device {} after select_device: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "n1-p2")
	assert.Empty(t, held(selector), "the selected device's lease is still held")
	res = farmtest.Call(t, selector, "release_device", map[string]any{})
	require.True(t, res.IsError, "release_device {} with the session's lease already given back succeeded")
	assert.Contains(t, farmtest.Text(res), "lease is required")
}
