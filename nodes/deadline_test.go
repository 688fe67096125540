package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// taskClock is a task's context whose deadline passes when the test says so, wherever the
// work is then: pass ends it as its deadline would; passTimerLate only moves the deadline into
// the past, ctx not done yet (its timer late, as when a dial's own timer, set from the
// deadline, fires first).
type taskClock struct {
	context.Context
	done        chan struct{}
	late, ended atomic.Bool
	at          time.Time
}

func newTaskClock() *taskClock {
	return &taskClock{Context: context.Background(), done: make(chan struct{}), at: time.Now().Add(time.Hour)}
}

func (c *taskClock) Deadline() (time.Time, bool) {
	if c.late.Load() {
		return time.Now().Add(-time.Millisecond), true
	}
	return c.at, true
}

func (c *taskClock) Done() <-chan struct{} { return c.done }

func (c *taskClock) Err() error {
	if c.ended.Load() {
		return context.DeadlineExceeded
	}
	return nil
}

func (c *taskClock) passTimerLate() { c.late.Store(true) }

func (c *taskClock) pass() {
	c.late.Store(true)
	if c.ended.CompareAndSwap(false, true) {
		close(c.done)
	}
}

// lateDriver is a device whose screenshot is img and whose tap does what tap says.
type lateDriver struct {
	img image.Image
	tap func(ctx context.Context) error
}

func (d *lateDriver) Info() device.Info {
	return device.Info{Serial: "late-1", Platform: device.PlatformAndroid}
}
func (d *lateDriver) ScreenSize(context.Context) (device.Size, error) {
	return device.Size{Width: 1080, Height: 2400}, nil
}
func (d *lateDriver) Screenshot(context.Context) (image.Image, error) { return d.img, nil }
func (d *lateDriver) Tap(ctx context.Context, _ device.Point, _ time.Duration) error {
	return d.tap(ctx)
}

// heldImage is a screen whose pixels are read only once release is closed; reached is closed
// when the first is asked for: the JPEG encoder is then busy with it.
type heldImage struct {
	reached, release chan struct{}
	once             sync.Once
}

func (h *heldImage) ColorModel() color.Model { return color.RGBAModel }
func (h *heldImage) Bounds() image.Rectangle { return image.Rect(0, 0, 256, 256) }
func (h *heldImage) At(x, y int) color.Color {
	h.once.Do(func() { close(h.reached) })
	<-h.release
	return color.White
}

// stopWithin bounds how long after its deadline a task may take to answer: far below what it
// would take otherwise (for ever, here), far above what a loaded machine under -race needs.
const stopWithin = 5 * time.Second

// A task whose deadline passes while its screenshot is encoded answers timed_out at once: the
// encoder, which takes no ctx, is left to finish alone. It took seconds under -race, past the
// grace of a cancelled driver, and the device was marked unhealthy for a legal timeout_ms.
func TestEncodingAScreenshotEndsAtTheDeadline(t *testing.T) {
	img := &heldImage{reached: make(chan struct{}), release: make(chan struct{})}
	defer close(img.release)
	b := newBoundDevice(&lateDriver{img: img}, tools.DefaultOps(), "n1", 1, nil)
	clock := newTaskClock()
	answer := make(chan broker.TaskResult, 1)
	go func() { answer <- b.Execute(clock, broker.TaskRequest{ID: "shot", Tool: "screenshot"}, nil) }()
	select {
	case <-img.reached:
	case res := <-answer:
		t.Fatalf("the screenshot answered before its image was encoded: %+v", res)
	case <-time.After(time.Minute):
		t.Fatal("the screenshot's image was never encoded")
	}
	clock.pass()
	select {
	case res := <-answer:
		if res.Outcome != broker.OutcomeTimedOut || res.Image != nil {
			t.Errorf("the deadline passed while the image was encoded: %s %s %q (image %d bytes); want timed_out, no image", res.Outcome, res.Code, res.Error, len(res.Image))
		}
	case <-time.After(stopWithin):
		t.Fatalf("still encoding %v after the deadline", stopWithin)
	}
}

// A driver's answer that comes after the task's deadline is timed_out, whether the deadline
// has ended ctx yet or not: a late success is no success (what it answered is kept, as an
// agent's partial report is), and a driver error past the deadline (an adb dial whose own
// timer fired first: "i/o timeout") is the deadline, not a failure.
func TestAnswersPastTheDeadlineAreTimedOut(t *testing.T) {
	xy, _ := json.Marshal(map[string]float64{"x": 0.5, "y": 0.5})
	dialTimeout := errors.New("adb server at 127.0.0.1:1 unreachable: dial tcp 127.0.0.1:1: i/o timeout")
	for _, c := range []struct {
		name string
		tap  func(clock *taskClock) error
		want string
	}{
		{"in time", func(*taskClock) error { return nil }, broker.OutcomeSucceeded},
		{"success, deadline passed", func(c *taskClock) error { c.pass(); return nil }, broker.OutcomeTimedOut},
		{"success, deadline passed, timer late", func(c *taskClock) error { c.passTimerLate(); return nil }, broker.OutcomeTimedOut},
		{"error, deadline passed, timer late", func(c *taskClock) error { c.passTimerLate(); return dialTimeout }, broker.OutcomeTimedOut},
		{"error in time", func(*taskClock) error { return dialTimeout }, broker.OutcomeFailed},
	} {
		clock := newTaskClock()
		drv := &lateDriver{tap: func(context.Context) error { return c.tap(clock) }}
		res := newBoundDevice(drv, tools.DefaultOps(), "n1", 1, nil).Execute(clock, broker.TaskRequest{ID: "tap", Tool: "tap_xy", Args: xy}, nil)
		if res.Outcome != c.want {
			t.Errorf("%s: %s %s %q; want %s", c.name, res.Outcome, res.Code, res.Error, c.want)
		}
		if res.Outcome == broker.OutcomeSucceeded || strings.HasPrefix(c.name, "success") {
			if len(res.Data) == 0 {
				t.Errorf("%s: the answer lost its data", c.name)
			}
		}
	}
}
