package adbsim

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

const (
	defaultSwipe = 300 * time.Millisecond // input swipe without a duration
	dragHold     = 500 * time.Millisecond // draganddrop holds this long first (a long press)
	badArgs      = "Error: Invalid arguments for command: "
)

// inputSources may come before an input command: `input touchscreen tap 1 2`.
var inputSources = []string{"keyboard", "mouse", "joystick", "touchnavigation", "touchpad", "trackball",
	"stylus", "dpad", "gesture", "touchscreen", "gamepad", "rotaryencoder"}

// cmdInput runs `input [SOURCE] [-d DISPLAY] tap|swipe|draganddrop|text|keyevent ARGS`.
// Coordinates are in the display frame and are mapped to the phone's pixels.
func cmdInput(d *Device, c *call) int {
	args := c.args[1:]
	if len(args) > 0 && slices.Contains(inputSources, args[0]) {
		args = args[1:]
	}
	if len(args) > 1 && args[0] == "-d" {
		args = args[2:]
	}
	if len(args) == 0 {
		c.errorf("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n")
		return 1
	}
	if sleep(c.ctx, d.inputStartup) != nil {
		return 130 // the stream closed while app_process started
	}
	if d.inputDenied {
		c.errorf("java.lang.SecurityException: Injecting to another application requires INJECT_EVENTS permission\n")
		return 1
	}
	verb, args := args[0], args[1:]
	if verb == "draganddrop" && d.sdk < 30 { // added in Android 11
		c.errorf("Error: Unknown command: %s\n", verb)
		return 1
	}
	switch verb {
	case "tap":
		pts, ok := points(d, args, 1)
		if !ok || len(args) != 2 {
			return usage(c, verb)
		}
		now := time.Now()
		d.recordTap(Tap{At: now, Up: now, Point: pts[0]})
		return phoneErr(c, d.phone.Tap(c.ctx, pts[0], 0))
	case "swipe", "draganddrop":
		pts, ok := points(d, args, 2)
		if !ok || len(args) > 5 {
			return usage(c, verb)
		}
		dur := defaultSwipe
		if len(args) == 5 {
			ms, err := strconv.ParseFloat(args[4], 64)
			if err != nil || ms < 0 {
				return usage(c, verb)
			}
			dur = time.Duration(ms * float64(time.Millisecond))
		}
		if verb == "draganddrop" {
			return phoneErr(c, d.phone.Swipe(c.ctx, pts[0], pts[1], dur, dragHold))
		}
		if pts[0] == pts[1] { // a swipe that does not move is a long press
			return phoneErr(c, d.phone.Tap(c.ctx, pts[0], dur))
		}
		return phoneErr(c, d.phone.Swipe(c.ctx, pts[0], pts[1], dur, 0))
	case "text":
		if len(args) == 0 {
			return usage(c, verb)
		}
		return phoneErr(c, d.phone.InputText(c.ctx, inputText(args[0])))
	case "keyevent":
		return keyevent(d, c, args)
	}
	c.errorf("Error: Unknown command: %s\n", verb)
	return 1
}

func usage(c *call, verb string) int {
	c.errorf("%s%s\n", badArgs, verb)
	return 1
}

// points parses n x,y pairs from the front of args and maps them to the phone.
func points(d *Device, args []string, n int) ([]device.Point, bool) {
	if len(args) < 2*n {
		return nil, false
	}
	disp := d.currentDisplay()
	out := make([]device.Point, n)
	for i := range n {
		x, err1 := strconv.ParseFloat(args[2*i], 32)
		y, err2 := strconv.ParseFloat(args[2*i+1], 32)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		out[i] = disp.toPhone(x, y)
	}
	return out, true
}

// inputText decodes `input text`'s argument as Android does: "%s" is a space. Only the
// first argument counts, as on a phone; the rest are dropped.
func inputText(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := []byte(s)
	escape := false
	for i := 0; i < len(b); i++ {
		if escape {
			escape = false
			if b[i] == 's' { // "%s" → " "
				b[i] = ' '
				b = append(b[:i-1], b[i:]...)
				i--
			}
		}
		if b[i] == '%' {
			escape = true
		}
	}
	return string(b)
}
