package android

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

// A phone's `getevent -lp`, as in docs/android.md.
const geteventLabelled = `add device 1: /dev/input/event2
  name:     "sec_touchscreen"
  events:
    KEY (0001): BTN_TOUCH            
    ABS (0003): ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
                ABS_MT_TOUCH_MAJOR    : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_X     : value 0, min 0, max 4095, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_Y     : value 0, min 0, max 4095, fuzz 0, flat 0, resolution 0
                ABS_MT_TRACKING_ID    : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0
                ABS_MT_PRESSURE       : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_DIRECT
add device 2: /dev/input/event0
  name:     "gpio-keys"
  events:
    KEY (0001): KEY_VOLUMEDOWN        KEY_VOLUMEUP          KEY_POWER*           
  input props:
    <none>
`

// An older phone's `getevent -p` (no labels): hex codes, errors for devices it cannot query,
// a touchpad before the touchscreen, key lists wrapped every eight codes.
const geteventHex = `could not get driver version for /dev/input/mice, Not a typewriter
add device 1: /dev/input/event5
  name:     "synaptics_touchpad"
  events:
    KEY (0001): 014a 
    ABS (0003): 0035  : value 0, min 0, max 1023, fuzz 0, flat 0, resolution 0
                0036  : value 0, min 0, max 767, fuzz 0, flat 0, resolution 0
                002f  : value 0, min 0, max 4, fuzz 0, flat 0, resolution 0
                0039  : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_POINTER
add device 2: /dev/input/event1
  name:     "mxt224_ts_input"
  events:
    KEY (0001): 0066  009e  008b  00d9  0072  0073  0074  0244 
                0145  014a 
    ABS (0003): 002f  : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
                0030  : value 0, min 0, max 30, fuzz 0, flat 0, resolution 0
                0035  : value 0, min 0, max 719, fuzz 0, flat 0, resolution 0
                0036  : value 0, min 0, max 1279, fuzz 0, flat 0, resolution 0
                0039  : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0
  input props:
    <not available>
could not get driver version for /dev/input/js0, Not a typewriter
`

func TestParseGetevent(t *testing.T) {
	devs, problems := parseGetevent(geteventLabelled)
	if len(devs) != 2 || len(problems) != 0 {
		t.Fatalf("devices %+v, problems %q", devs, problems)
	}
	ts, keys := devs[0], devs[1]
	if ts.path != "/dev/input/event2" || ts.name != "sec_touchscreen" || !ts.hasProp("INPUT_PROP_DIRECT") ||
		!slices.Equal(ts.keys, []uint16{btnTouch}) {
		t.Errorf("touchscreen %+v", ts)
	}
	wantAbs := map[uint16]absRange{absMTSlot: {0, 9}, absMTTouchMajor: {0, 255}, absMTPositionX: {0, 4095},
		absMTPositionY: {0, 4095}, absMTTrackingID: {0, 65535}, absMTPressure: {0, 255}}
	if !maps.Equal(ts.abs, wantAbs) {
		t.Errorf("touchscreen axes %v, want %v", ts.abs, wantAbs)
	}
	if keys.path != "/dev/input/event0" || keys.name != "gpio-keys" || !slices.Equal(keys.keys, []uint16{114, 115, 116}) ||
		len(keys.props) != 0 || len(keys.abs) != 0 {
		t.Errorf("keys %+v (a key marked * is down, and still listed)", keys)
	}

	devs, problems = parseGetevent(geteventHex)
	if len(devs) != 2 || len(problems) != 2 || !strings.Contains(problems[0], "/dev/input/mice") {
		t.Fatalf("devices %+v, problems %q", devs, problems)
	}
	if pad := devs[0]; !pad.hasProp("INPUT_PROP_POINTER") || pad.abs[absMTPositionY] != (absRange{0, 767}) {
		t.Errorf("touchpad %+v", pad)
	}
	if ts := devs[1]; !slices.Equal(ts.keys, []uint16{102, 158, 139, 217, 114, 115, 116, 580, btnToolFinger, btnTouch}) ||
		ts.abs[absMTPositionX] != (absRange{0, 719}) || len(ts.props) != 0 {
		t.Errorf("touchscreen %+v", ts)
	}
}

// The touchscreen is the direct device with multitouch positions; a touchpad is not one, a
// device without props may be, and protocol A is refused with a reason.
func TestFindTouchscreen(t *testing.T) {
	devs, _ := parseGetevent(geteventLabelled)
	p, err := findTouchscreen(devs)
	if err != nil || p.String() != "/dev/input/event2 (sec_touchscreen, 0-4095 x 0-4095)" || !p.btnTouch || p.btnToolFinger ||
		!p.hasPressure || !p.hasMajor || p.slot != (absRange{0, 9}) {
		t.Errorf("touchscreen %+v, %v", p, err)
	}
	devs, _ = parseGetevent(geteventHex)
	if p, err := findTouchscreen(devs); err != nil || p.path != "/dev/input/event1" || !p.btnToolFinger || p.hasPressure {
		t.Errorf("touchscreen of the older phone %+v, %v (not the touchpad)", p, err)
	}
	// A multitouch device that is not direct (a virtual one, say) after the screen: the screen.
	devs, _ = parseGetevent(geteventLabelled + strings.Replace(strings.Replace(geteventLabelled, "event2", "event7", 1), "INPUT_PROP_DIRECT", "<none>", 1))
	if p, err := findTouchscreen(devs); err != nil || p.path != "/dev/input/event2" {
		t.Errorf("touchscreen %+v, %v; want the direct one", p, err)
	}
	devs, _ = parseGetevent(geteventHex)
	if _, err := findTouchscreen(devs[:1]); !errors.Is(err, errNoTouchscreen) {
		t.Errorf("a touchpad alone: %v", err)
	}
	protoA := strings.NewReplacer("ABS_MT_SLOT ", "ABS_MT_BLOB ").Replace(geteventLabelled)
	devs, _ = parseGetevent(protoA)
	if _, err := findTouchscreen(devs); err == nil || !strings.Contains(err.Error(), "protocol A") {
		t.Errorf("a touchscreen without slots: %v", err)
	}
	if _, err := findTouchscreen(nil); !errors.Is(err, errNoTouchscreen) {
		t.Errorf("no devices: %v", err)
	}
}

// Display pixels map to the panel through the rotation back to the natural orientation, and
// scale to its range; pixels off the display are refused.
func TestToPanel(t *testing.T) {
	p := &touchPanel{x: absRange{0, 4095}, y: absRange{0, 4095}}
	portrait := geometry{size: device.Size{Width: 1080, Height: 2400}}
	landscape := func(r int) geometry { return geometry{size: device.Size{Width: 2400, Height: 1080}, rotation: r} }
	for _, c := range []struct {
		g    geometry
		pt   device.Point
		want panelPoint
	}{
		{portrait, device.Point{}, panelPoint{1, 0}},
		{portrait, device.Point{X: 1079, Y: 2399}, panelPoint{4094, 4095}},
		{portrait, device.Point{X: 540, Y: 1200}, panelPoint{2049, 2048}},
		// Rotation 1: the display's top-left is the natural top-right.
		{landscape(1), device.Point{}, panelPoint{4094, 0}},
		{landscape(1), device.Point{X: 2399, Y: 1079}, panelPoint{1, 4095}},
		{geometry{size: portrait.size, rotation: 2}, device.Point{}, panelPoint{4094, 4095}},
		{landscape(3), device.Point{}, panelPoint{1, 4095}},
	} {
		got, err := p.toPanel(c.pt, c.g)
		if err != nil || got != c.want {
			t.Errorf("%v at rotation %d: %v, %v; want %v", c.pt, c.g.rotation, got, err, c.want)
		}
	}
	offset := &touchPanel{x: absRange{-100, 100}, y: absRange{50, 60}}
	if got, _ := offset.toPanel(device.Point{X: 1079, Y: 0}, portrait); got != (panelPoint{100, 50}) {
		t.Errorf("an offset panel: %v", got)
	}
	for _, pt := range []device.Point{{X: 1080}, {Y: 2400}, {X: -1}} {
		if _, err := p.toPanel(pt, portrait); !errors.Is(err, ErrBadArgument) {
			t.Errorf("%v off a 1080x2400 display: %v", pt, err)
		}
	}
}

// Events are input_event structs of the ABI's size, little-endian, with a zero time.
func TestAppendEvents(t *testing.T) {
	b := appendEvents(nil, 24, inputEvent{evAbs, absMTTrackingID, -1})
	want := append(make([]byte, 16), 3, 0, 0x39, 0, 0xff, 0xff, 0xff, 0xff)
	if !slices.Equal(b, want) {
		t.Errorf("24-byte event % x, want % x", b, want)
	}
	if b := appendEvents(nil, 16, inputEvent{evKey, 116, 1}); !slices.Equal(b, append(make([]byte, 8), 1, 0, 116, 0, 1, 0, 0, 0)) {
		t.Errorf("16-byte event % x", b)
	}
	for abi, want := range map[string]int{"arm64-v8a": 24, "x86_64": 24, "armeabi-v7a": 16, "x86": 16, "armeabi": 16} {
		if n, ok := eventSize(abi); !ok || n != want {
			t.Errorf("%s: %d, %v; want %d", abi, n, ok, want)
		}
	}
	if _, ok := eventSize("sparc"); ok {
		t.Error("an unknown ABI has a size")
	}
}
