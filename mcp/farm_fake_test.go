package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// fakeFarm is a Farm whose behaviour tests set through function fields. Unset fields answer
// plainly: the devices given, tasks run by a miniature node (the real ops over fullDriver),
// leases granted, nothing to abort. Every request is recorded.
type fakeFarm struct {
	t       testing.TB
	devices []broker.DeviceEntry

	RunFn        func(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error)
	AcquireFn    func(ctx context.Context, req broker.AcquireRequest) (broker.LeaseAnswer, error)
	ReleaseFn    func(ctx context.Context, req broker.ReleaseRequest) (broker.LeaseAnswer, error)
	AbortFn      func(ctx context.Context, req broker.AbortRequest) (broker.AbortAnswer, error)
	LeasesFn     func(ctx context.Context) ([]broker.Lease, error)
	TaskRecordFn func(ctx context.Context, id string) (broker.TaskResult, error)
	Down         []string // SitesDown

	mu       sync.Mutex
	runs     []broker.TaskRequest
	acquires []broker.AcquireRequest
	releases []broker.ReleaseRequest
	aborts   []broker.AbortRequest
	sessions map[string]broker.SessionDefault
	latest   map[string]string
	ended    map[string]bool
	enders   []func(session string) // FollowEndedSessions' callers
}

var _ Farm = (*fakeFarm)(nil)

func (f *fakeFarm) SitesDown() []string { return f.Down }

// testDevices is a small farm: two Android phones (one busy), an iPhone and an offline phone.
func testDevices() []broker.DeviceEntry {
	return []broker.DeviceEntry{
		{V: 1, Serial: "emulator-5554", Platform: device.PlatformAndroid, Model: "Pixel 7", Brand: "google", Release: "14", SDK: "34",
			Tags: []string{"lab", "wifi"}, Node: "n1", State: broker.StateOnline},
		{V: 1, Serial: "android-busy", Platform: device.PlatformAndroid, Model: "Pixel 7", Tags: []string{"lab"}, Node: "n1",
			State: broker.StateLeased, Holder: "alice (claude)"},
		{V: 1, Serial: "00008101-IPHONE", Platform: device.PlatformIOS, Model: "iPhone 13", Release: "17.5", Node: "n2", State: broker.StateOnline},
		{V: 1, Serial: "android-gone", Platform: device.PlatformAndroid, Model: "Pixel 6", Node: "n2", State: broker.StateOffline, Reason: "unplugged"},
	}
}

func newFakeFarm(t testing.TB) *fakeFarm {
	return &fakeFarm{t: t, devices: testDevices(), sessions: map[string]broker.SessionDefault{}, latest: map[string]string{}, ended: map[string]bool{}}
}

func (f *fakeFarm) Devices() []broker.DeviceEntry {
	devs := append([]broker.DeviceEntry(nil), f.devices...)
	slices.SortFunc(devs, func(a, b broker.DeviceEntry) int { return strings.Compare(a.Serial, b.Serial) })
	return devs
}

func (f *fakeFarm) Device(serial string) (broker.DeviceEntry, bool) {
	for _, d := range f.devices {
		if d.Serial == serial {
			return d, true
		}
	}
	return broker.DeviceEntry{}, false
}

func (f *fakeFarm) Run(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
	f.mu.Lock()
	f.runs = append(f.runs, req)
	f.mu.Unlock()
	if f.RunFn != nil {
		return f.RunFn(ctx, req, progress)
	}
	return miniNode(f.tb(), ctx, req, progress), nil
}

func (f *fakeFarm) Acquire(ctx context.Context, req broker.AcquireRequest) (broker.LeaseAnswer, error) {
	f.mu.Lock()
	f.acquires = append(f.acquires, req)
	f.mu.Unlock()
	if f.AcquireFn != nil {
		return f.AcquireFn(ctx, req)
	}
	return broker.LeaseAnswer{V: 1, OK: true, Lease: testLease(req.Serial, req.Holder)}, nil
}

func (f *fakeFarm) Release(ctx context.Context, req broker.ReleaseRequest) (broker.LeaseAnswer, error) {
	f.mu.Lock()
	f.releases = append(f.releases, req)
	f.mu.Unlock()
	if f.ReleaseFn != nil {
		return f.ReleaseFn(ctx, req)
	}
	return broker.LeaseAnswer{V: 1, OK: true}, nil
}

func (f *fakeFarm) Abort(ctx context.Context, req broker.AbortRequest) (broker.AbortAnswer, error) {
	f.mu.Lock()
	f.aborts = append(f.aborts, req)
	f.mu.Unlock()
	if f.AbortFn != nil {
		return f.AbortFn(ctx, req)
	}
	return broker.AbortAnswer{V: 1}, nil
}

func (f *fakeFarm) Leases(ctx context.Context) ([]broker.Lease, error) {
	if f.LeasesFn != nil {
		return f.LeasesFn(ctx)
	}
	return nil, nil
}

func (f *fakeFarm) TaskRecord(ctx context.Context, id string) (broker.TaskResult, error) {
	if f.TaskRecordFn != nil {
		return f.TaskRecordFn(ctx, id)
	}
	return broker.TaskResult{}, fmt.Errorf("task %s: not found", id)
}

func (f *fakeFarm) PollTaskRecord(ctx context.Context, id string) (broker.TaskResult, error) {
	return f.TaskRecord(ctx, id)
}

func (f *fakeFarm) Screenshot(_ context.Context, name string) ([]byte, error) {
	return nil, fmt.Errorf("screenshot %s: %w", name, broker.ErrNotFound)
}

func (f *fakeFarm) SessionDevice(_ context.Context, session string) (broker.SessionDefault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.sessions[session]
	return d, ok
}

func (f *fakeFarm) UpdateSessionDevice(_ context.Context, session string, change func(*broker.SessionDefault) bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.sessions[session]
	if change(&d) {
		f.sessions[session] = d
	}
	return nil
}

// EndSession marks session ended and tells the gateways that follow the ends, as the broker's
// watch does.
func (f *fakeFarm) EndSession(_ context.Context, session string) error {
	f.mu.Lock()
	f.ended[session] = true
	enders := slices.Clone(f.enders)
	f.mu.Unlock()
	for _, ended := range enders {
		ended(session)
	}
	return nil
}

func (f *fakeFarm) SessionEnded(_ context.Context, session string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ended[session], nil
}

func (f *fakeFarm) FollowEndedSessions(ended func(session string)) {
	f.mu.Lock()
	f.enders = append(f.enders, ended)
	soFar := slices.Collect(maps.Keys(f.ended))
	f.mu.Unlock()
	for _, s := range soFar {
		ended(s)
	}
}

func (f *fakeFarm) LatestTask(_ context.Context, who string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id, ok := f.latest[who]
	return id, ok
}

func (f *fakeFarm) SetLatestTask(_ context.Context, who, taskID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.latest[who] = taskID
	return nil
}

// setTB makes failures found by the miniature node go to t (fuzz iterations have their own).
func (f *fakeFarm) setTB(t testing.TB) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = t
}

func (f *fakeFarm) tb() testing.TB {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

// Runs returns the task requests the farm received.
func (f *fakeFarm) Runs() []broker.TaskRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]broker.TaskRequest(nil), f.runs...)
}

// testLease is the lease the fake farm grants.
func testLease(serial string, h broker.Holder) *broker.Lease {
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	return &broker.Lease{V: 1, Handle: "lease_" + strings.NewReplacer(".", "", ":", "").Replace(serial), Serial: serial, Node: "n1",
		Holder: h, Epoch: 7, AcquiredAt: now, ExpiresAt: now.Add(5 * time.Minute), MaxUntil: now.Add(time.Hour)}
}

// miniNode runs a task as an edge node would: the real op over fullDriver, briefly. Gateway
// validation must be at least as strict as the node's: a bad_input answer from the op means
// the gateway let something through, except off-screen pixels, which only the node can know.
func miniNode(t testing.TB, ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) broker.TaskResult {
	res := broker.TaskResult{V: 1, ID: req.ID, Serial: req.Serial, Node: "n1", Tool: req.Tool, Holder: req.Holder, Submitted: time.Now()}
	op, ok := tools.DefaultOps()[req.Tool]
	if !ok {
		t.Errorf("gateway sent tool %q that no node op serves", req.Tool)
		res.Outcome, res.Code, res.Error = broker.OutcomeRefused, broker.CodeBadInput, "unknown tool"
		return res
	}
	// Bounded so that no test can hang here; the ops the tests run take milliseconds, but on a
	// loaded 2-core machine a 1 ms sleep has taken over 20 ms (the bound this once had).
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	task := &tools.Task{Driver: fullDriver{}, Args: req.Args, Progress: func(done, total float64, msg string) {
		if progress != nil {
			progress(broker.Progress{TaskID: req.ID, Progress: done, Total: total, Message: msg})
		}
	}}
	res.Started = time.Now()
	out, err := op.Run(ctx, task)
	res.Finished = time.Now()
	if err != nil {
		res.Outcome, res.Code, res.Error = broker.OutcomeFailed, tools.ErrorCode(err), err.Error()
		if errors.Is(err, context.DeadlineExceeded) {
			res.Outcome = broker.OutcomeTimedOut
		}
		if res.Code == broker.CodeBadInput && !onlyTheNodeKnows(req.Tool, err) {
			t.Errorf("node refused what the gateway accepted: %s %s: %v", req.Tool, req.Args, err)
		}
		return res
	}
	res.Outcome, res.Text = broker.OutcomeSucceeded, out.Text
	if out.Data != nil {
		if res.Data, err = json.Marshal(out.Data); err != nil {
			t.Errorf("%s: encode data: %v", req.Tool, err)
		}
	}
	if out.Image != nil {
		var b bytes.Buffer
		if err := jpeg.Encode(&b, out.Image, nil); err != nil {
			t.Errorf("%s: encode image: %v", req.Tool, err)
		}
		res.Image, res.ImageType = b.Bytes(), "image/jpeg"
	}
	return res
}

// onlyTheNodeKnows reports bad input that the gateway cannot see: pixels off the screen, a
// bbox swipe from the screen's edge, a file missing on the node.
func onlyTheNodeKnows(tool string, err error) bool {
	msg := err.Error()
	switch tool {
	case "tap_abs_xy":
		return strings.Contains(msg, "outside")
	case "swipe":
		return strings.Contains(msg, "edge")
	case "app_install":
		return strings.Contains(msg, "on the node")
	case "sequence":
		return strings.Contains(msg, "outside") || strings.Contains(msg, "edge")
	}
	return false
}

// fullDriver is a driver with every ability that does nothing, at once.
type fullDriver struct{}

var _ device.Capable = fullDriver{}

func (fullDriver) Info() device.Info {
	return device.Info{Serial: "emulator-5554", Platform: device.PlatformAndroid}
}
func (fullDriver) ScreenSize(context.Context) (device.Size, error) {
	return device.Size{Width: 1080, Height: 2400}, nil
}
func (fullDriver) Screenshot(context.Context) (image.Image, error) {
	return image.NewGray(image.Rect(0, 0, 9, 16)), nil
}
func (fullDriver) Tap(context.Context, device.Point, time.Duration) error { return nil }
func (fullDriver) DoubleTap(context.Context, device.Point) error          { return nil }
func (fullDriver) Swipe(context.Context, device.Point, device.Point, time.Duration, time.Duration) error {
	return nil
}
func (fullDriver) InputText(context.Context, string) error { return nil }
func (fullDriver) PressKey(context.Context, string) error  { return nil }
func (fullDriver) ListPackages(context.Context) ([]string, error) {
	return []string{"com.android.settings", "com.corral.notes"}, nil
}
func (fullDriver) LaunchApp(context.Context, string) error    { return nil }
func (fullDriver) TerminateApp(context.Context, string) error { return nil }
func (fullDriver) Source(context.Context) (string, error) {
	return `<hierarchy><node bounds="[0,0][1080,2400]"/></hierarchy>`, nil
}
func (fullDriver) InstallApp(context.Context, string) (device.InstalledApp, error) {
	return device.InstalledApp{}, nil
}
func (fullDriver) UninstallApp(context.Context, string) error { return nil }
func (fullDriver) ClearApp(context.Context, string) error     { return nil }
func (fullDriver) ForegroundApp(context.Context) (string, error) {
	return "com.corral.notes", nil
}
func (fullDriver) SetIME(context.Context, string) error       { return nil }
func (fullDriver) SetClipboard(context.Context, string) error { return nil }
func (fullDriver) Density(context.Context) (int, error)       { return 420, nil }
func (fullDriver) Status(context.Context) (map[string]string, error) {
	return map[string]string{"battery_level": "100"}, nil
}
