package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// busyAnswer is a node's refusal of an acquire: someone else holds the device.
func busyAnswer(serial string, queue int) broker.LeaseAnswer {
	l := testLease(serial, broker.Holder{Principal: "bob"}).Public() // as a node shows it: its hash, not its handle
	l.QueueLen = queue
	return broker.LeaseAnswer{V: 1, Code: broker.CodeBusy, Error: "device is leased", Lease: &l}
}

func TestSelectDevice(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	out := wantOK(t, "select_device", call(t, cl, "select_device", map[string]any{"platform": "android", "serial": phone}))
	lease := out["lease"].(map[string]any)
	handle := lease["handle"].(string)
	if msg := out["message"].(string); !strings.Contains(msg, phone) || !strings.Contains(msg, handle) {
		t.Errorf("message %q should name the serial and the lease handle", msg)
	}
	holder, _ := lease["holder"].(string) // its session's tag follows: the test client has a session
	if lease["serial"] != phone || lease["epoch"] != 7.0 || !strings.HasPrefix(holder, "anonymous (corral-test) session ") && holder != "anonymous" {
		t.Errorf("lease %v", lease)
	}
	if len(farm.acquires) != 1 || farm.acquires[0].WaitMS != 0 || farm.acquires[0].V != broker.WireVersion {
		t.Errorf("acquires %+v", farm.acquires)
	}
	if len(farm.sessions) != 1 {
		t.Fatalf("session default not stored: %v", farm.sessions)
	}
	for _, sd := range farm.sessions {
		if sd.Serial != phone || sd.Lease != handle || sd.Platform != "android" {
			t.Errorf("session default %+v", sd)
		}
	}

	// Selecting it again while this session holds it is not an error.
	farm.AcquireFn = func(_ context.Context, req broker.AcquireRequest) (broker.LeaseAnswer, error) {
		a := busyAnswer(req.Serial, 0)
		a.Lease.Holder = req.Holder
		return a, nil
	}
	again := wantOK(t, "select_device", call(t, cl, "select_device", map[string]any{"serial": phone}))
	if again["lease"].(map[string]any)["handle"] != handle {
		t.Errorf("reselect gave %v, want handle %s", again, handle)
	}
}

func TestSelectDeviceRefusals(t *testing.T) {
	farm := newFakeFarm(t)
	farm.AcquireFn = func(_ context.Context, req broker.AcquireRequest) (broker.LeaseAnswer, error) {
		return busyAnswer(req.Serial, 3), nil
	}
	cl := newTestClient(t, farm)
	wantError(t, call(t, cl, "select_device", map[string]any{"serial": "android-busy"}), "busy", "bob", "3 waiting", "wait_seconds")
	// Without serial it asks the free devices in turn (select_device_first.go); all busy here.
	wantError(t, call(t, cl, "select_device", map[string]any{}), "serial not given, and no device is free", "2 were taken by others as this call asked")
	wantError(t, call(t, cl, "select_device", map[string]any{"serial": "nope"}), "unknown device", "list_available_devices")
	wantError(t, call(t, cl, "select_device", map[string]any{"serial": phone, "platform": "ios"}), "is android, not ios")
	wantError(t, call(t, cl, "select_device", map[string]any{"serial": phone, "lease": "x"}), `unknown argument "lease"`)
	if len(farm.sessions) != 0 {
		t.Errorf("refused selections were stored: %v", farm.sessions)
	}
}

// Without a protocol session the selection is kept for the caller's identity (e626f5f): the
// message says calls naming the device run under its lease, and one selection is stored.
func TestSelectDeviceWithoutSession(t *testing.T) {
	farm := newFakeFarm(t)
	g := New(farm, nil, NewMetrics(testRegistry()), Options{})
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "select_device"
	req.Params.Arguments = map[string]any{"serial": phone}
	res, err := toolSelectDevice(nil).handler(g)(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	out := wantOK(t, "select_device", res)
	msg := out["message"].(string)
	if !strings.Contains(msg, "no protocol session") || !strings.Contains(msg, "without lease run under this lease") || len(farm.sessions) != 1 {
		t.Fatalf("message %q, sessions %v", msg, farm.sessions)
	}
	for key, sd := range farm.sessions {
		if !strings.Contains(key, "selected_") || sd.Serial != phone || sd.Lease != "lease_"+phone {
			t.Errorf("stored selection %s: %+v", key, sd)
		}
	}
}

func TestAcquireDevicePrefersOnlineDevices(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	out := wantOK(t, "acquire_device", call(t, cl, "acquire_device", map[string]any{"platform": "android", "ttl_seconds": 60}))
	if got := out["lease"].(map[string]any)["serial"]; got != phone {
		t.Fatalf("acquired %v, want the online %s", got, phone)
	}
	if len(farm.acquires) != 1 || farm.acquires[0].TTLMS != 60000 || farm.acquires[0].WaitMS != 0 {
		t.Fatalf("acquires %+v", farm.acquires)
	}
	l := out["lease"].(map[string]any)
	for _, k := range []string{"handle", "serial", "epoch", "expires_at", "max_until", "holder"} {
		if _, ok := l[k]; !ok {
			t.Errorf("lease has no %s: %v", k, l)
		}
	}
}

func TestAcquireDeviceFallsBackToWaiting(t *testing.T) {
	farm := newFakeFarm(t)
	farm.devices = append(farm.devices, broker.DeviceEntry{Serial: "android-busy-2", Platform: "android", Model: "Pixel 7",
		Tags: []string{"lab"}, Node: "n2", State: broker.StateBusy})
	farm.AcquireFn = func(_ context.Context, req broker.AcquireRequest) (broker.LeaseAnswer, error) {
		if req.WaitMS > 0 {
			return broker.LeaseAnswer{V: 1, OK: true, Lease: testLease(req.Serial, req.Holder)}, nil
		}
		queue := map[string]int{phone: 4, "android-busy": 2, "android-busy-2": 1}[req.Serial]
		return busyAnswer(req.Serial, queue), nil
	}
	cl := newTestClient(t, farm)
	out := wantOK(t, "acquire_device", call(t, cl, "acquire_device", map[string]any{"tags": []any{"lab"}, "wait_seconds": 30}))
	if got := out["lease"].(map[string]any)["serial"]; got != "android-busy-2" {
		t.Fatalf("waited on %v, want the device with the fewest waiters", got)
	}
	if msg, _ := out["message"].(string); !strings.Contains(msg, "(after waiting in its queue behind 1 other caller)") {
		t.Errorf("message %q does not say it waited behind 1 other caller", msg)
	}
	var order []string
	for _, a := range farm.acquires {
		order = append(order, a.Serial)
	}
	if strings.Join(order, ",") != "emulator-5554,android-busy,android-busy-2,android-busy-2" {
		t.Errorf("acquire order %v: online first, then the others, then the wait", order)
	}
	if last := farm.acquires[len(farm.acquires)-1]; last.WaitMS != 30000 {
		t.Errorf("wait %d ms, want 30000", last.WaitMS)
	}
	if farm.acquires[0].Holder.Principal == "" {
		t.Error("acquire without holder")
	}
}

func TestAcquireDeviceRefusals(t *testing.T) {
	farm := newFakeFarm(t)
	farm.AcquireFn = func(_ context.Context, req broker.AcquireRequest) (broker.LeaseAnswer, error) {
		if req.WaitMS > 0 {
			a := busyAnswer(req.Serial, 1)
			a.Code = broker.CodeWaitExpired
			return a, nil
		}
		return busyAnswer(req.Serial, 1), nil
	}
	cl := newTestClient(t, farm)
	// Nothing matches: the answer lists what exists.
	wantError(t, call(t, cl, "acquire_device", map[string]any{"model": "Galaxy S99"}),
		`no device matches model="Galaxy S99"`, "emulator-5554 (android Pixel 7, online, tags lab/wifi)", "00008101-IPHONE")
	// Only an offline device matches: its reason says why.
	wantError(t, call(t, cl, "acquire_device", map[string]any{"model": "pixel 6"}), "unhealthy, offline or on a draining node", "android-gone offline: unplugged")
	// All busy, no wait: say how to queue.
	wantError(t, call(t, cl, "acquire_device", map[string]any{"platform": "ios"}), "could be leased", "bob", "wait_seconds")
	// All busy, waited in vain.
	wantError(t, call(t, cl, "acquire_device", map[string]any{"platform": "ios", "wait_seconds": 0.5}), "wait_expired", "bob")
	// Bad selectors.
	wantError(t, call(t, cl, "acquire_device", map[string]any{"tags": "lab"}), "tags")
	wantError(t, call(t, cl, "acquire_device", map[string]any{"tags": []any{""}}), "tag")
	wantError(t, call(t, cl, "acquire_device", map[string]any{"wait_seconds": 4000}), "wait_seconds")
	wantError(t, call(t, cl, "acquire_device", map[string]any{"ttl_seconds": -1}), "ttl_seconds")

	farm.AcquireFn = func(context.Context, broker.AcquireRequest) (broker.LeaseAnswer, error) {
		return broker.LeaseAnswer{}, errors.New("nats: timeout")
	}
	wantError(t, call(t, cl, "acquire_device", map[string]any{"serial": phone}), "nats: timeout")
}

func TestReleaseDevice(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	out := wantOK(t, "release_device", call(t, cl, "release_device", map[string]any{"serial": phone, "lease": "lease_abc"}))
	if !strings.Contains(out["message"].(string), phone) {
		t.Errorf("message %q", out["message"])
	}
	r := farm.releases[0]
	if r.V != broker.WireVersion || r.Serial != phone || r.Handle != "lease_abc" || r.Force || r.By == "" {
		t.Errorf("release request %+v", r)
	}

	// In a session, serial defaults to the selected device, and the dead handle is forgotten.
	sel := wantOK(t, "select_device", call(t, cl, "select_device", map[string]any{"serial": phone}))
	handle := sel["lease"].(map[string]any)["handle"].(string)
	wantOK(t, "release_device", call(t, cl, "release_device", map[string]any{"lease": handle}))
	for _, sd := range farm.sessions {
		if sd.Serial != phone || sd.Lease != "" {
			t.Errorf("session default after release: %+v", sd)
		}
	}

	farm.ReleaseFn = func(context.Context, broker.ReleaseRequest) (broker.LeaseAnswer, error) {
		return broker.LeaseAnswer{Code: broker.CodeStaleLease, Error: "lease unknown or expired"}, nil
	}
	wantError(t, call(t, cl, "release_device", map[string]any{"serial": phone, "lease": "lease_old"}), "stale_lease", "expired")
	wantError(t, call(t, cl, "release_device", map[string]any{"serial": phone}), "lease is required")
	wantError(t, call(t, cl, "release_device", map[string]any{"serial": phone, "lease": "a.b.>"}), "lease")
	wantError(t, call(t, cl, "release_device", map[string]any{"serial": "nope", "lease": "lease_x"}), "unknown device")
}

// Without serial and outside a session's selection, release_device finds the lease's device
// among the farm's leases (by the handle's hash); a handle no lease has reaches no node, and no
// answer repeats it.
func TestReleaseDeviceFindsTheLeasesDevice(t *testing.T) {
	farm := newFakeFarm(t)
	farm.LeasesFn = func(context.Context) ([]broker.Lease, error) {
		return []broker.Lease{testLease("z-dev", broker.Holder{Principal: "bob"}).Public(),
			testLease(phone, broker.Holder{Principal: "alice"}).Public()}, nil
	}
	cl := newTestClient(t, farm)
	handle := testLease(phone, broker.Holder{}).Handle
	wantOK(t, "release_device", call(t, cl, "release_device", map[string]any{"lease": handle}))
	require.Len(t, farm.releases, 1)
	assert.Equal(t, phone, farm.releases[0].Serial)
	assert.Equal(t, handle, farm.releases[0].Handle)

	res := call(t, cl, "release_device", map[string]any{"lease": "lease_gone"})
	wantError(t, res, "no lease held now has this handle")
	assert.NotContains(t, resultText(res), "lease_gone", "the answer repeats the handle")
	assert.Len(t, farm.releases, 1, "a release reached the farm")
}

func TestListLeasesBlanksHandles(t *testing.T) {
	farm := newFakeFarm(t)
	farm.LeasesFn = func(context.Context) ([]broker.Lease, error) {
		return []broker.Lease{*testLease("z-dev", broker.Holder{Principal: "bob"}), *testLease(phone, broker.Holder{Principal: "alice"})}, nil
	}
	cl := newTestClient(t, farm)
	out := wantOK(t, "list_leases", call(t, cl, "list_leases", nil))
	leases := out["leases"].([]any)
	if len(leases) != 2 || leases[0].(map[string]any)["serial"] != phone {
		t.Fatalf("leases %v, want two sorted by serial", leases)
	}
	for _, l := range leases {
		if h, ok := l.(map[string]any)["handle"]; ok {
			t.Errorf("handle %v shown", h)
		}
	}
	farm.LeasesFn = func(context.Context) ([]broker.Lease, error) { return nil, nil }
	if got := wantOK(t, "list_leases", call(t, cl, "list_leases", nil))["leases"].([]any); len(got) != 0 {
		t.Errorf("leases %v", got)
	}
	farm.LeasesFn = func(context.Context) ([]broker.Lease, error) { return nil, errors.New("no responders") }
	wantError(t, call(t, cl, "list_leases", nil), "no responders")
}

func TestLeaseTimesAreRFC3339(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	out := wantOK(t, "acquire_device", call(t, cl, "acquire_device", map[string]any{"serial": phone}))
	s, _ := out["lease"].(map[string]any)["expires_at"].(string)
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		t.Fatalf("expires_at %q: %v", s, err)
	}
}

// count asks for several devices at once; bad counts are refused before anything is asked of
// the farm, and a farm that keeps no groups says so.
func TestAcquireDeviceCount(t *testing.T) {
	farm := newFakeFarm(t)
	cl := newTestClient(t, farm)
	wantError(t, call(t, cl, "acquire_device", map[string]any{"count": 21}), "count must be between 1 and 20")
	wantError(t, call(t, cl, "acquire_device", map[string]any{"count": -2}), "count must be between 1 and 20")
	wantError(t, call(t, cl, "acquire_device", map[string]any{"count": 1.5}), "count must be a whole number")
	wantError(t, call(t, cl, "acquire_device", map[string]any{"count": 2, "serial": phone}), "count 2 with serial")
	wantError(t, call(t, cl, "acquire_device", map[string]any{"count": 2}), "keeps no lease groups")
	wantError(t, call(t, cl, "release_device", map[string]any{"lease": broker.NewGroupHandle()}), "keeps no lease groups")
	assert.Empty(t, farm.acquires, "a refused count reached the farm")
	assert.Empty(t, farm.releases)

	out := wantOK(t, "acquire_device", call(t, cl, "acquire_device", map[string]any{"count": 1, "platform": "android"}))
	assert.NotContains(t, out, "group", "count 1 is a single lease")
	assert.Equal(t, phone, out["lease"].(map[string]any)["serial"])
}
