package adbsim

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Linux input event types and codes (linux/input-event-codes.h) of the simulated devices.
const (
	evSyn = 0x00
	evKey = 0x01
	evAbs = 0x03

	synReport = 0

	absX            = 0x00
	absY            = 0x01
	absZ            = 0x02
	absMTSlot       = 0x2f
	absMTTouchMajor = 0x30
	absMTPositionX  = 0x35
	absMTPositionY  = 0x36
	absMTTrackingID = 0x39
	absMTPressure   = 0x3a

	btnTouch = 0x14a
)

// eventLabels are the names getevent -l prints for the codes the simulated devices have.
var (
	keyLabels = map[uint16]string{114: "KEY_VOLUMEDOWN", 115: "KEY_VOLUMEUP", 116: "KEY_POWER", 102: "KEY_HOME",
		158: "KEY_BACK", 580: "KEY_APPSELECT", btnTouch: "BTN_TOUCH"}
	absLabels = map[uint16]string{absX: "ABS_X", absY: "ABS_Y", absZ: "ABS_Z", absMTSlot: "ABS_MT_SLOT",
		absMTTouchMajor: "ABS_MT_TOUCH_MAJOR", absMTPositionX: "ABS_MT_POSITION_X", absMTPositionY: "ABS_MT_POSITION_Y",
		absMTTrackingID: "ABS_MT_TRACKING_ID", absMTPressure: "ABS_MT_PRESSURE"}
)

// buttons are the Android keys the simulated buttons press, by Linux key code (as the
// phones' key layouts map them).
var buttons = map[uint16]string{114: "VOLUME_DOWN", 115: "VOLUME_UP", 116: "POWER", 102: "HOME", 158: "BACK", 580: "APP_SWITCH"}

// eventDevice is one of the phone's /dev/input/event* devices: what getevent lists of it.
type eventDevice struct {
	path, name string
	keys       []uint16  // EV_KEY codes, ascending
	abs        []absAxis // ascending codes
	props      []string
}

// absAxis is an absolute axis and its range.
type absAxis struct {
	code     uint16
	min, max int32
}

func (e *eventDevice) hasKey(code uint16) bool { return slices.Contains(e.keys, code) }

func (e *eventDevice) axis(code uint16) (absAxis, bool) {
	i := slices.IndexFunc(e.abs, func(a absAxis) bool { return a.code == code })
	if i < 0 {
		return absAxis{}, false
	}
	return e.abs[i], true
}

// touchscreenName is the touchscreen's name, in getevent and in `dumpsys input`.
const touchscreenName = "corral_touchscreen"

// eventDevices are the phone's input devices in the order getevent finds them: the
// touchscreen (unless WithoutTouchscreen), whose axes count 0–4095 by default (WithTouchPanel),
// not pixels; the volume and power buttons; the navigation buttons; and an accelerometer,
// which has absolute axes but is no touchscreen.
func (d *Device) eventDevices() []eventDevice {
	var devs []eventDevice
	if !d.noTouchscreen {
		devs = append(devs, eventDevice{path: "/dev/input/event2", name: touchscreenName, keys: []uint16{btnTouch},
			abs: []absAxis{{absMTSlot, 0, 9}, {absMTTouchMajor, 0, 255}, {absMTPositionX, 0, d.panelMax[0]},
				{absMTPositionY, 0, d.panelMax[1]}, {absMTTrackingID, 0, 65535}, {absMTPressure, 0, 255}},
			props: []string{"INPUT_PROP_DIRECT"}})
	}
	return append(devs,
		eventDevice{path: "/dev/input/event0", name: "gpio-keys", keys: []uint16{114, 115, 116}},
		eventDevice{path: "/dev/input/event1", name: "corral_navkeys", keys: []uint16{102, 158, 580}},
		eventDevice{path: "/dev/input/event3", name: "corral_accel", abs: []absAxis{{absX, -2048, 2047}, {absY, -2048, 2047}, {absZ, -2048, 2047}}},
	)
}

// SetInputDevicesDenied makes the event devices unwritable from now on, or writable again:
// streams already writing keep writing (their device is open), new ones are refused, as after
// a change of the shell's groups.
func (d *Device) SetInputDevicesDenied(denied bool) { d.inputLocked.Store(denied) }

// errDenied is what the shell says of an event device it may not open.
var errDenied = errors.New("Permission denied")

// eventDevice returns the device at path, or errDenied if the shell may not write it (it does
// not exist, or WithInputDevicesDenied).
func (d *Device) eventDevice(path string) (*eventDevice, error) {
	if d.inputLocked.Load() {
		return nil, errDenied
	}
	for _, e := range d.evdevs {
		if e.path == path {
			return &e, nil
		}
	}
	return nil, errDenied
}

// cmdGetevent runs `getevent -p` and `getevent -lp` (labels): every input device, its events
// and properties, as toolbox's getevent prints them. Without -p getevent would print events as
// they come; none come here, so it waits until it is stopped.
func cmdGetevent(d *Device, c *call) int {
	var flags string
	for _, a := range c.args[1:] {
		if !strings.HasPrefix(a, "-") {
			c.errorf("could not open %s, No such file or directory\n", a)
			return 1
		}
		flags += a[1:]
	}
	if !strings.ContainsAny(flags, "pi") {
		<-c.ctx.Done()
		return 130
	}
	labels := strings.Contains(flags, "l")
	for i, e := range d.evdevs {
		c.printf("add device %d: %s\n  name:     \"%s\"\n  events:\n", i+1, e.path, e.name)
		if len(e.keys) > 0 {
			c.printf("    KEY (%04x):", evKey)
			perLine := 8
			if labels {
				perLine = 4
			}
			for n, code := range e.keys {
				if n > 0 && n%perLine == 0 {
					c.printf("\n               ")
				}
				c.printf("%s", eventEntry(code, keyLabels, labels))
			}
			c.printf("\n")
		}
		if len(e.abs) > 0 {
			c.printf("    ABS (%04x):", evAbs)
			for n, a := range e.abs {
				if n > 0 {
					c.printf("\n               ")
				}
				c.printf("%s : value 0, min %d, max %d, fuzz 0, flat 0, resolution 0", eventEntry(a.code, absLabels, labels), a.min, a.max)
			}
			c.printf("\n")
		}
		c.printf("  input props:\n")
		for _, p := range e.props {
			c.printf("    %s\n", p)
		}
		if len(e.props) == 0 {
			c.printf("    <none>\n")
		}
	}
	return 0
}

// eventEntry is one code as getevent prints it: " NAME" padded to 21 columns with -l, else
// " 00hh" (then the key's state, up, as a space).
func eventEntry(code uint16, names map[uint16]string, labels bool) string {
	if name, ok := names[code]; ok && labels {
		return fmt.Sprintf(" %.20s %*s", name, 20-len(name), "")
	}
	if labels {
		return fmt.Sprintf(" %04x                 ", code)
	}
	return fmt.Sprintf(" %04x ", code)
}

// cmdTest runs `test -e|-f|-d|-r|-w PATH`: the pushed files, the directories every device has,
// and the input devices (writable unless WithInputDevicesDenied).
func cmdTest(d *Device, c *call) int {
	if len(c.args) != 3 || len(c.args[1]) != 2 || !strings.Contains("efdrw", c.args[1][1:]) || c.args[1][0] != '-' {
		c.errorf("test: unknown operand\n")
		return 2
	}
	p := cleanPath(c.args[2])
	if p == "" {
		return 1 // relative: nothing here has a working directory
	}
	_, isFile := d.files.get(p)
	isDir := d.files.isDir(p)
	dev := slices.IndexFunc(d.evdevs, func(e eventDevice) bool { return e.path == p }) >= 0
	readOnly := slices.ContainsFunc(readOnly, func(ro string) bool { return p == ro || strings.HasPrefix(p, ro+"/") })
	var ok bool
	switch c.args[1][1] {
	case 'e', 'r':
		ok = isFile || isDir || dev
	case 'f':
		ok = isFile
	case 'd':
		ok = isDir
	case 'w':
		ok = dev && !d.inputLocked.Load() || (isFile || isDir) && !readOnly
	}
	if ok {
		return 0
	}
	return 1
}
