package test

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

type leaseResult struct {
	Message string `json:"message"`
	Lease   struct {
		Handle    string    `json:"handle"`
		Serial    string    `json:"serial"`
		Holder    string    `json:"holder"`
		Epoch     uint64    `json:"epoch"`
		ExpiresAt time.Time `json:"expires_at"`
	} `json:"lease"`
}

func acquire(t *testing.T, c *client.Client, a map[string]any) leaseResult {
	t.Helper()
	var l leaseResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", a), &l)
	if l.Lease.Handle == "" {
		t.Fatalf("acquire_device gave no handle: %+v", l)
	}
	return l
}

// A client lists the devices, leases one, taps, and sees the screen change.
func TestListLeaseTapScreenshot(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{})
	c := f.Client("agent")

	var list struct {
		AndroidDevices []string `json:"androidDevices"`
		Devices        []struct{ Serial, State string }
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "list_available_devices", nil), &list)
	if len(list.AndroidDevices) != 3 || len(list.Devices) != 3 {
		t.Fatalf("want 3 devices, got %+v", list)
	}
	serial := list.AndroidDevices[0]
	l := acquire(t, c, args("serial", serial))
	if l.Lease.Serial != serial {
		t.Fatalf("leased %s, asked %s", l.Lease.Serial, serial)
	}
	before := farmtest.MustCall(t, c, "screenshot", args("serial", serial, "lease", l.Lease.Handle))
	img1, mime := farmtest.Image(before)
	if mime != "image/jpeg" || len(img1) < 1000 {
		t.Fatalf("screenshot: want JPEG image content, got %q (%d bytes)", mime, len(img1))
	}
	x, y := centreOf(t, c, serial, l.Lease.Handle, "Settings")
	farmtest.MustCall(t, c, "tap_xy", args("serial", serial, "lease", l.Lease.Handle, "x", x, "y", y))
	img2, _ := farmtest.Image(farmtest.MustCall(t, c, "screenshot", args("serial", serial, "lease", l.Lease.Handle)))
	if img1 == img2 {
		t.Fatal("the screenshot after tapping Settings is the same as before")
	}
	if got := f.Phone(serial).InputLog(); len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "tap ") {
		t.Fatalf("the phone's input log does not end with the tap: %q", got)
	}
	farmtest.MustCall(t, c, "release_device", args("serial", serial, "lease", l.Lease.Handle))
}

// Two clients race for one device: exactly one holds it; the other is told who, or waits and
// gets it right after release.
func TestTwoClientsRaceForOneDevice(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	a, b := f.Client("alice"), f.Client("bob")

	results := make([]*leaseResult, 2)
	errs := make([]string, 2)
	race := []<-chan farmtest.Answer{
		farmtest.Go(t, a, "acquire_device", args("serial", serial)),
		farmtest.Go(t, b, "acquire_device", args("serial", serial)),
	}
	for i, answer := range race {
		res := (<-answer).Get(t)
		if res.IsError {
			errs[i] = farmtest.Text(res)
			continue
		}
		var l leaseResult
		farmtest.Structured(t, res, &l)
		results[i] = &l
	}
	winner, loser := 0, 1
	if results[0] == nil {
		winner, loser = 1, 0
	}
	if results[winner] == nil || results[loser] != nil {
		t.Fatalf("want exactly one lease; got %v / errors %q", results, errs)
	}
	names := []string{"alice", "bob"}
	contains(t, errs[loser], "busy", "Held by", names[winner], "wait_seconds")

	// The loser waits; the holder releases; the loser gets the device at once.
	got := farmtest.Go(t, []*client.Client{a, b}[loser], "acquire_device", args("serial", serial, "wait_seconds", 10))
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		leases, _ := f.Gateway().Client.Leases(t.Context())
		return d.State == broker.StateLeased && len(leases) == 1 && leases[0].QueueLen == 1
	}, "the loser is queued")
	farmtest.MustCall(t, []*client.Client{a, b}[winner], "release_device", args("serial", serial, "lease", results[winner].Lease.Handle))
	select {
	case answer := <-got:
		var l leaseResult
		farmtest.Structured(t, answer.Get(t), &l) // an error result has none
		if l.Lease.Epoch <= results[winner].Lease.Epoch {
			t.Fatalf("new epoch %d not above the old %d", l.Lease.Epoch, results[winner].Lease.Epoch)
		}
		// The old handle is fenced.
		res := farmtest.Call(t, []*client.Client{a, b}[winner], "tap_xy", args("serial", serial, "lease", results[winner].Lease.Handle, "x", 0.5, "y", 0.5))
		if !res.IsError {
			t.Fatal("a released lease handle still works")
		}
		contains(t, farmtest.Text(res), "stale_lease", "acquire_device")
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting client did not get the device after release")
	}
}

// A device whose queue holds --max-queue waiters turns the next caller away at once with
// queue_full, through the MCP front door, and /metrics counts it; the waiters are served.
func TestFullQueueTurnsCallersAway(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, MaxQueue: 1})
	serial := f.Devices()[0].Serial
	holder, waiter, late := f.Client("holder"), f.Client("waiter"), f.Client("late")
	l := acquire(t, holder, args("serial", serial))
	waited := farmtest.Go(t, waiter, "acquire_device", args("serial", serial, "wait_seconds", 10))
	farmtest.Eventually(t, 5*time.Second, func() bool {
		leases, _ := f.Gateway().Client.Leases(t.Context())
		return len(leases) == 1 && leases[0].QueueLen == 1
	}, "the waiter queued")

	start := time.Now()
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"acquire_device", args("serial", serial, "wait_seconds", 10)},
		{"tap_xy", args("serial", serial, "wait_seconds", 10, "x", 0.5, "y", 0.5)},
	} {
		res := farmtest.Call(t, late, tc.tool, tc.args)
		if !res.IsError {
			t.Fatalf("%s on a full queue: %s", tc.tool, farmtest.Text(res))
		}
		contains(t, farmtest.Text(res), "queue_full", "1 tasks and lease requests waiting", "--max-queue", "another device")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the refusals took %v: they waited instead of answering at once", took)
	}
	if v := metric(t, f, `corral_queue_full_total{node="n1"}`); v != 2 {
		t.Errorf("corral_queue_full_total = %v, want 2", v)
	}
	farmtest.MustCall(t, holder, "release_device", args("serial", serial, "lease", l.Lease.Handle))
	if res := (<-waited).Get(t); res.IsError {
		t.Fatalf("the queued waiter: %s", farmtest.Text(res))
	}
}

// 1,000 concurrent calls from 20 clients over 10 devices never run two tasks on one device.
func TestNoTwoTasksOnOneDevice(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 5})
	devs := f.Devices()
	for _, p := range f.Phones() {
		p.SetDelay(2 * time.Millisecond) // make overlaps likely if exclusion were broken
	}
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	for i := range 20 {
		c := f.Client(fmt.Sprintf("client-%d", i))
		wg.Go(func() {
			for k := range 50 {
				serial := devs[(i+k)%len(devs)].Serial
				res, err := farmtest.TryCall(t, c, "tap_xy", args("serial", serial, "x", 0.5, "y", 0.05, "wait_seconds", 60))
				if err != nil {
					failed.Add(1)
					t.Errorf("call %d/%d: %v", i, k, err)
					return
				}
				if res.IsError {
					failed.Add(1)
					t.Errorf("call %d/%d: %s", i, k, farmtest.Text(res))
					continue
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	var ops, overlaps int64
	for _, p := range f.Phones() {
		ops += p.Operations()
		overlaps += p.Overlaps()
	}
	if ok.Load() != 1000 || overlaps != 0 {
		t.Fatalf("succeeded %d of 1000 (failed %d); overlapping operations seen by the phones: %d", ok.Load(), failed.Load(), overlaps)
	}
	if ops < 1000 {
		t.Fatalf("the phones saw %d operations, want at least 1000", ops)
	}
}

// abort_task ends a running sleep 60 long before its minute is up, reports it aborted, and frees
// the device. (How soon is BenchmarkAbort's to measure; freeWithin says why its bound is loose.)
func TestAbortEndsSleep(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	a, op := f.Client("agent"), f.Client("operator")
	done := farmtest.Go(t, a, "sleep", args("serial", serial, "seconds", 60))
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateBusy
	}, "the sleep runs")
	start := time.Now()
	farmtest.MustCall(t, op, "abort_task", args("serial", serial))
	select {
	case answer := <-done:
		took := time.Since(start)
		contains(t, farmtest.Text(answer.Get(t)), "aborted")
		if took > freeWithin {
			t.Fatalf("the sleep ended %v after abort_task was called; want within %v of a 60 s sleep", took, freeWithin)
		}
	case <-time.After(time.Until(start.Add(freeWithin))):
		t.Fatalf("the sleep still runs %v after abort_task was called", freeWithin)
	}
	farmtest.MustCall(t, a, "get_screen_size", args("serial", serial))
}

// A deadline frees the device and is reported as timed out.
func TestTimeoutFreesDevice(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	res := farmtest.Call(t, c, "sleep", args("serial", serial, "seconds", 30, "timeout_ms", 300))
	if !res.IsError {
		t.Fatal("a sleep past its deadline succeeded")
	}
	contains(t, farmtest.Text(res), "timed out")
	farmtest.MustCall(t, c, "get_screen_size", args("serial", serial))
	id := taskID(t, farmtest.Text(res))
	var rec struct {
		Status  string `json:"status"`
		Outcome string `json:"outcome"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_task_result", args("task_id", id)), &rec)
	if rec.Outcome != broker.OutcomeTimedOut && rec.Status != broker.OutcomeTimedOut {
		t.Fatalf("task record says %+v, want timed_out", rec)
	}
}

func taskID(t *testing.T, text string) string {
	t.Helper()
	i := strings.Index(text, "[task ")
	if i < 0 {
		t.Fatalf("no task id in %q", text)
	}
	return strings.TrimSuffix(strings.Fields(text[i+6:])[0], "]")
}

// A driver that ignores cancellation: its device is marked unhealthy, its actor restarted
// (counted in /metrics), and it comes back once its health check passes.
func TestHungDriverRestartsActor(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Grace: 200 * time.Millisecond})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	f.Phone(serial).HangNext()
	res := farmtest.Call(t, c, "tap_xy", args("serial", serial, "x", 0.5, "y", 0.5, "timeout_ms", 200))
	if !res.IsError {
		t.Fatal("a hung tap succeeded")
	}
	contains(t, farmtest.Text(res), "timed out", "unhealthy")
	farmtest.Eventually(t, 5*time.Second, func() bool {
		return metric(t, f, `corral_actor_restarts_total{kind="device",node="n1"}`) >= 1
	}, "the restart is counted")
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateOnline
	}, "the device is back online after its health check")
	farmtest.MustCall(t, c, "get_screen_size", args("serial", serial))
}

// A driver panic restarts only that device's actor.
func TestPanicRestartsOnlyThatActor(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
	devs := f.Devices()
	bad, good := devs[0].Serial, devs[1].Serial
	c := f.Client("agent")
	l := acquire(t, c, args("serial", good))
	f.Phone(bad).PanicNext()
	res := farmtest.Call(t, c, "tap_xy", args("serial", bad, "x", 0.1, "y", 0.1))
	contains(t, farmtest.Text(res), "driver_panic")
	farmtest.MustCall(t, c, "tap_xy", args("serial", good, "lease", l.Lease.Handle, "x", 0.1, "y", 0.1))
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(bad)
		return d.State == broker.StateOnline
	}, "the panicked device is back")
	farmtest.MustCall(t, c, "tap_xy", args("serial", bad, "x", 0.1, "y", 0.1))
	// The other device's lease survived the restart.
	farmtest.MustCall(t, c, "get_screen_size", args("serial", good, "lease", l.Lease.Handle))
	if got := metric(t, f, `corral_actor_restarts_total{kind="device",node="n1"}`); got != 1 {
		t.Fatalf("device actor restarts = %v, want 1", got)
	}
}

// A node stopped mid-call is lost about 3 s after the stop (actors/README.md rule 7); the caller
// hears it was lost, its devices go offline and its leases are revoked.
func TestNodeLostMidCall(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 2})
	var victim string
	for _, d := range f.Devices() {
		if d.Node == "n2" {
			victim = d.Serial
		}
	}
	c := f.Client("agent")
	l := acquire(t, c, args("serial", victim))
	done := farmtest.Go(t, c, "sleep", args("serial", victim, "lease", l.Lease.Handle, "seconds", 60))
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(victim)
		return d.State == broker.StateBusy && slices.Contains(f.Gateway().Client.Nodes(), "n2")
	}, "the sleep runs on n2, alive")
	killed := time.Now() // KillNode first closes the node's connection: no heartbeat after this
	f.KillNode("n2")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return !slices.Contains(f.Gateway().Client.Nodes(), "n2")
	}, "n2 declared lost")
	// Lost after LostAfter of silence (rule 7's 3 s with a check's margin); a gateway too busy
	// to read the heartbeats already delivered to it holds its verdict for up to 2×LostAfter
	// (broker.Liveness.Run), so that is the bound a loaded machine may take, and a second more
	// for this test's own polling. The timing itself is broker/liveness_test.go's, on a clock.
	took := time.Since(killed)
	if limit := 2*broker.LostAfter + time.Second; took < broker.LostAfter-broker.HeartbeatInterval || took > limit {
		t.Errorf("n2 was declared lost %s after it stopped; want between %s and %s", took, broker.LostAfter-broker.HeartbeatInterval, limit)
	}
	select {
	case answer := <-done:
		contains(t, farmtest.Text(answer.Get(t)), "n2", "lost")
	case <-time.After(5 * time.Second):
		t.Fatal("the caller has not heard of the lost node 5 s after it was declared lost")
	}
	farmtest.Eventually(t, 5*time.Second, func() bool {
		for _, d := range f.Devices() {
			if d.Node == "n2" && d.State != broker.StateOffline {
				return false
			}
		}
		return true
	}, "n2's devices are offline")
	leases, _ := f.Gateway().Client.Leases(t.Context())
	for _, l := range leases {
		if l.Node == "n2" {
			t.Fatalf("lease of lost node still listed: %+v", l)
		}
	}
	res := farmtest.Call(t, c, "tap_xy", args("serial", victim, "x", 0.5, "y", 0.5))
	contains(t, farmtest.Text(res), "offline")
}

// A gateway restarted: lease handles still work.
func TestLeaseSurvivesGatewayRestart(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	l := acquire(t, f.Client("agent"), args("serial", serial))
	f.StopGateway()
	f.StartGateway()
	f.WaitDevices(1, broker.StateLeased)
	c := f.Client("agent-again")
	farmtest.MustCall(t, c, "tap_xy", args("serial", serial, "lease", l.Lease.Handle, "x", 0.5, "y", 0.5))
	res := farmtest.Call(t, f.Client("other"), "tap_xy", args("serial", serial, "x", 0.5, "y", 0.5))
	contains(t, farmtest.Text(res), "busy", "agent")
}

// metric reads one sample from the gateway's /metrics.
func metric(t *testing.T, f *farmtest.Farm, series string) float64 {
	t.Helper()
	resp, err := http.Get(f.Gateway().HTTP.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, series+" ") {
			var v float64
			fmt.Sscan(strings.TrimPrefix(line, series+" "), &v)
			return v
		}
	}
	t.Fatalf("no series %s in /metrics", series)
	return 0
}

// A node that hears it was declared lost revokes its leases and moves its epochs on: holders
// of the old handle are fenced, and the node shows its devices as they really are.
func TestNodeDeclaredLostFencesOldLeases(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	l := acquire(t, c, args("serial", serial))
	nc, err := nats.Connect(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Publish(fmt.Sprintf(broker.EventNodeT, "n1", "lost"), []byte(`{"v":1,"kind":"node","node":"n1","what":"lost"}`)); err != nil {
		t.Fatal(err)
	}
	farmtest.Eventually(t, 5*time.Second, func() bool {
		res := farmtest.Call(t, c, "get_screen_size", args("serial", serial, "lease", l.Lease.Handle))
		return res.IsError && strings.Contains(farmtest.Text(res), "stale_lease")
	}, "the old lease is fenced")
	next := acquire(t, c, args("serial", serial))
	if next.Lease.Epoch <= l.Lease.Epoch+1 {
		t.Fatalf("epoch %d after revocation; want above %d", next.Lease.Epoch, l.Lease.Epoch+1)
	}
}
