package android

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// keyTarget is where a key is pressed by writing events: a device's stream and the key's code.
type keyTarget struct {
	stream *eventStream
	code   uint16
}

// eventPath is an event device path the driver puts in a shell command: nothing to quote.
var eventPath = regexp.MustCompile(`^/dev/input/[A-Za-z0-9_.-]+$`)

// setupInput learns, at creation, which of the phone's input devices the driver writes to:
// the touchscreen, and the devices with the buttons Android keys are pressed on. getevent is
// what `getevent -lp` printed, abi the phone's ro.product.cpu.abi (the size of its events).
// What cannot be written stays with `input` commands, and Info.Extra says which: "touch" and
// "keys".
func (d *Driver) setupInput(ctx context.Context, abi, getevent string) error {
	devs, problems := parseGetevent(getevent)
	devs = slices.DeleteFunc(devs, func(dev inputDevice) bool { return !eventPath.MatchString(dev.path) })
	d.keysInfo = "input keyevent"
	size, ok := eventSize(abi)
	if !ok {
		d.touchInfo = fmt.Sprintf("input command (ro.product.cpu.abi is %s: the size of its input events is not known)", quoteOutput(abi))
		return nil
	}
	panel, perr := findTouchscreen(devs)
	var paths []string
	for _, dev := range devs {
		if perr == nil && dev.path == panel.path || slices.ContainsFunc(dev.keys, isButton) {
			paths = append(paths, dev.path)
		}
	}
	writable, err := d.writable(ctx, paths)
	if err != nil {
		return err
	}
	streams := map[string]*eventStream{}
	stream := func(path string) *eventStream {
		if streams[path] == nil {
			streams[path] = newEventStream(d, path, size)
		}
		return streams[path]
	}
	switch {
	case perr != nil:
		reason := perr.Error()
		if errors.Is(perr, errNoTouchscreen) && len(problems) > 0 {
			reason += ": " + problems[0]
		}
		d.touchInfo = "input command (" + reason + ")"
	case !writable[panel.path]:
		d.touchInfo = "input command (no writable touchscreen: " + panel.path + ": permission denied)"
	default:
		d.touch = &touchscreen{panel: panel, stream: stream(panel.path)}
		d.touchInfo = panel.String()
	}
	d.keys = map[string]keyTarget{}
	for name, codes := range keyScancodes {
		for _, code := range codes {
			i := slices.IndexFunc(devs, func(dev inputDevice) bool { return dev.hasKey(code) && writable[dev.path] })
			if i >= 0 {
				d.keys[name] = keyTarget{stream: stream(devs[i].path), code: code}
				break
			}
		}
	}
	if len(d.keys) > 0 {
		var names []string
		for name := range d.keys {
			names = append(names, strings.TrimPrefix(name, "KEYCODE_"))
		}
		slices.Sort(names)
		d.keysInfo = "input events for " + strings.Join(names, ", ") + "; input keyevent for the others"
	}
	return nil
}

// isButton says whether code is one of the keys the driver presses by events.
func isButton(code uint16) bool {
	for _, codes := range keyScancodes {
		if slices.Contains(codes, code) {
			return true
		}
	}
	return false
}

// writable asks the phone, in one command, which of paths the shell user may write:
// `test -w P && echo P; …`. The shell user is in the input group on stock Android, which owns
// /dev/input/event*; some builds take that away.
func (d *Driver) writable(ctx context.Context, paths []string) (map[string]bool, error) {
	ok := map[string]bool{}
	if len(paths) == 0 {
		return ok, nil
	}
	var cmd strings.Builder
	for i, p := range paths {
		if i > 0 {
			cmd.WriteString("; ")
		}
		fmt.Fprintf(&cmd, "test -w %s && echo %s", p, p)
	}
	out, err := d.shell(ctx, "input devices", cmd.String())
	if err != nil {
		return nil, err
	}
	for line := range strings.Lines(out) {
		if p := strings.TrimSpace(line); slices.Contains(paths, p) {
			ok[p] = true
		}
	}
	return ok, nil
}
