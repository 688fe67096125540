package adbsim

import (
	"context"
	"encoding/binary"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// getevent -lp lists the devices as a phone's toolbox prints them.
func TestGetevent(t *testing.T) {
	d := newDevice(t, WithTouchPanel(1439, 3199))
	out := sh(t, d, "getevent -lp")
	for _, want := range []string{
		"add device 1: /dev/input/event2\n  name:     \"corral_touchscreen\"\n  events:\n    KEY (0001): BTN_TOUCH            \n",
		"    ABS (0003): ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0\n",
		"                ABS_MT_POSITION_X     : value 0, min 0, max 1439, fuzz 0, flat 0, resolution 0\n",
		"                ABS_MT_POSITION_Y     : value 0, min 0, max 3199, fuzz 0, flat 0, resolution 0\n",
		"  input props:\n    INPUT_PROP_DIRECT\nadd device 2: /dev/input/event0\n  name:     \"gpio-keys\"\n",
		"    KEY (0001): KEY_VOLUMEDOWN        KEY_VOLUMEUP          KEY_POWER            \n  input props:\n    <none>\n",
		"    KEY (0001): KEY_HOME              KEY_BACK              KEY_APPSELECT        \n",
		"    ABS (0003): ABS_X                 : value 0, min -2048, max 2047",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("getevent -lp lacks %q:\n%s", want, out)
		}
	}
	if hex := sh(t, d, "getevent -p"); !strings.Contains(hex, "    KEY (0001): 0072  0073  0074 \n") ||
		!strings.Contains(hex, "                0035  : value 0, min 0, max 1439,") {
		t.Errorf("getevent -p (no labels):\n%s", hex)
	}
	if out := sh(t, newDevice(t, WithoutTouchscreen()), "getevent -lp"); strings.Contains(out, "touchscreen") || !strings.Contains(out, "gpio-keys") {
		t.Errorf("without a touchscreen:\n%s", out)
	}
	// Stopped 20 ms after it waits: a plain 20 ms deadline could pass before the line runs on a
	// loaded machine, and a line whose ctx has ended runs nothing (status 0).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, status := d.run(&stopAfterWait{Context: ctx, cancel: cancel, after: 20 * time.Millisecond}, "getevent"); status != 130 {
		t.Errorf("getevent without -p ended with %d; it waits for events until stopped", status)
	}
}

// stopAfterWait is a context that ends `after` once something first waits on it (calls Done).
type stopAfterWait struct {
	context.Context
	cancel context.CancelFunc
	after  time.Duration
	once   sync.Once
}

func (c *stopAfterWait) Done() <-chan struct{} {
	c.once.Do(func() { time.AfterFunc(c.after, c.cancel) })
	return c.Context.Done()
}

// test -w says the event devices are writable, unless they are denied; writing to one the
// shell may not open fails as a shell says.
func TestEventDevicesWritable(t *testing.T) {
	d := newDevice(t)
	if got := sh(t, d, "test -w /dev/input/event2 && echo yes; test -w /dev/input/event9 && echo no; test -d /sdcard && test -w /sdcard && echo dir; "+
		"test -w /system/bin && echo no; test -d sdcard && echo no; test -f /sdcard && echo no"); got != "yes\ndir\n" {
		t.Errorf("test: %q", got)
	}
	if got := sh(t, d, "test -q x"); got != "test: unknown operand\n" {
		t.Errorf("test -q: %q", got)
	}
	d.SetInputDevicesDenied(true)
	if got := sh(t, d, "test -w /dev/input/event2 && echo yes"); got != "" {
		t.Errorf("a denied device is writable: %q", got)
	}
	if got := sh(t, d, "cat > /dev/input/event2"); got != "/system/bin/sh: can't create /dev/input/event2: Permission denied\n" {
		t.Errorf("writing a denied device: %q", got)
	}
}

// Only `cat > /dev/input/…`, alone, is a stream of events.
func TestEventWriterPath(t *testing.T) {
	for cmd, want := range map[string]string{
		"cat > /dev/input/event2":            "/dev/input/event2",
		"/system/bin/cat >/dev/input/event0": "/dev/input/event0",
		"cat >> /dev/input/event1":           "/dev/input/event1",
		"cat > /sdcard/x":                    "",
		"cat x > /dev/input/event2":          "",
		"cat > /dev/input/event2; echo":      "",
		"cat > /dev/input/event2 &":          "",
		"cat 2> /dev/input/event2":           "",
		"cat < /dev/input/event2":            "",
		"echo > /dev/input/event2":           "",
	} {
		if got, ok := eventWriterPath(cmd); got != want || ok != (want != "") {
			t.Errorf("%q: %q, %v; want %q", cmd, got, ok, want)
		}
	}
}

// event encodes an input_event of size bytes.
func event(size int, typ, code uint16, value int32) []byte {
	b := make([]byte, size)
	binary.LittleEndian.PutUint16(b[size-8:], typ)
	binary.LittleEndian.PutUint16(b[size-6:], code)
	binary.LittleEndian.PutUint32(b[size-4:], uint32(value))
	return b
}

// Events written through the shell (a redirection) land on the phone too, mapped from the
// panel's range to the phone's pixels.
func TestEventsThroughARedirection(t *testing.T) {
	d := newDevice(t, WithABI("armeabi-v7a"))
	var evs []byte
	for _, e := range [][3]int32{{evAbs, absMTTrackingID, 7}, {evAbs, absMTPositionX, 2048}, {evAbs, absMTPositionY, 1024},
		{evSyn, synReport, 0}, {evAbs, absMTTrackingID, -1}, {evSyn, synReport, 0}} {
		evs = append(evs, event(16, uint16(e[0]), uint16(e[1]), e[2])...)
	}
	if err := d.files.put("/data/local/tmp/tap", File{Data: evs, Mode: modeFile | 0o644}); err != nil {
		t.Fatal(err)
	}
	sh(t, d, "cat /data/local/tmp/tap > /dev/input/event2")
	taps := d.Taps()
	if len(taps) != 1 || taps[0].Point != (device.Point{X: 540, Y: 600}) {
		t.Errorf("taps %+v, want one at 540,600", taps)
	}
	wantLog(t, d, "tap 540 600 hold=0s")
}

// `input` takes DefaultInputStartup to start, as app_process does on a phone.
func TestInputStartsSlowly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := StartDevice(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	start := time.Now()
	sh(t, d, "input tap 1 1")
	if took := time.Since(start); took < DefaultInputStartup {
		t.Errorf("input tap took %v; a phone takes %v and more", took, DefaultInputStartup)
	}
}
