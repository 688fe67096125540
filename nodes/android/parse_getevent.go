package android

import (
	"slices"
	"strconv"
	"strings"
)

// inputDevice is one device of `getevent -lp`: its event device, its name, the key codes and
// absolute axes it reports, and its input properties.
type inputDevice struct {
	path  string
	name  string
	keys  []uint16
	abs   map[uint16]absRange
	props []string
}

// absRange is the range an absolute axis reports.
type absRange struct{ min, max int32 }

func (d inputDevice) hasKey(code uint16) bool { return slices.Contains(d.keys, code) }

func (d inputDevice) hasProp(name string) bool { return slices.Contains(d.props, name) }

// parseGetevent reads what `getevent -lp` prints: per device an "add device N: PATH" line,
// its name, its events (KEY and ABS, by name with -l, or in hex) and its input properties.
// Lines it does not know are skipped; problems are the lines where getevent said it could
// not open or query a device (an older getevent says so for /dev/input/mice, say).
func parseGetevent(out string) (devs []inputDevice, problems []string) {
	var (
		cur      *inputDevice
		section  string // "events" or "props"
		evType   = -1   // the type of the events section's current lines
		finished = func() {
			if cur != nil {
				devs = append(devs, *cur)
			}
		}
	)
	for line := range strings.Lines(out) {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "add device "):
			finished()
			_, path, _ := strings.Cut(t, ": ")
			cur, section, evType = &inputDevice{path: strings.TrimSpace(path), abs: map[uint16]absRange{}}, "", -1
			continue
		case strings.HasPrefix(t, "could not "):
			problems = append(problems, clip(t, 120))
			continue
		case cur == nil:
			continue
		case strings.HasPrefix(t, "name:"):
			cur.name = strings.Trim(strings.TrimSpace(strings.TrimPrefix(t, "name:")), `"`)
			continue
		case t == "events:":
			section = "events"
			continue
		case t == "input props:":
			section = "props"
			continue
		}
		switch section {
		case "props":
			if t != "" && !strings.HasPrefix(t, "<") {
				cur.props = append(cur.props, t)
			}
		case "events":
			rest := t
			if typ, after, ok := eventHeader(t); ok {
				evType, rest = typ, after
			}
			parseEvents(cur, evType, rest)
		}
	}
	finished()
	return devs, problems
}

// eventHeader reads the start of an events line, "KEY (0001): …": the type, and the rest.
func eventHeader(t string) (typ int, rest string, ok bool) {
	open := strings.IndexByte(t, '(')
	head, rest, found := strings.Cut(t, "):")
	if !found || open < 0 || open > 4 || len(head) != open+5 {
		return 0, "", false
	}
	n, err := strconv.ParseUint(head[open+1:], 16, 16)
	if err != nil {
		return 0, "", false
	}
	return int(n), rest, true
}

// parseEvents adds what one events line lists to d: key codes (names or hex, a trailing *
// marking a key that is down), or one absolute axis and its range ("NAME : value 0, min 0,
// max 4095, …").
func parseEvents(d *inputDevice, typ int, rest string) {
	switch typ {
	case evKey:
		for _, f := range strings.Fields(rest) {
			if code, ok := eventCode(strings.TrimSuffix(f, "*"), keyLabels); ok && !d.hasKey(code) {
				d.keys = append(d.keys, code)
			}
		}
	case evAbs:
		name, info, ok := strings.Cut(rest, ":")
		code, known := eventCode(strings.TrimSuffix(strings.TrimSpace(name), "*"), absLabels)
		if !ok || !known {
			return
		}
		lo, okMin := field(info, "min")
		hi, okMax := field(info, "max")
		if okMin && okMax && lo < hi {
			d.abs[code] = absRange{min: lo, max: hi}
		}
	}
}

// eventCode reads a code by its name in labels, or in four hex digits.
func eventCode(s string, labels map[string]uint16) (uint16, bool) {
	if code, ok := labels[s]; ok {
		return code, true
	}
	if len(s) != 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 16, 16)
	return uint16(n), err == nil
}

// field reads the number after key in "value 0, min 0, max 4095, fuzz 0".
func field(info, key string) (int32, bool) {
	fs := strings.Fields(strings.ReplaceAll(info, ",", " "))
	for i := 0; i+1 < len(fs); i++ {
		if fs[i] == key {
			n, err := strconv.ParseInt(fs[i+1], 10, 32)
			return int32(n), err == nil
		}
	}
	return 0, false
}
