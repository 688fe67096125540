package android

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/corral-farm/corral/nodes/device"
)

// Largest screen dimension and density the parsers believe.
const (
	maxDimension = 100000
	maxDensity   = 10000
)

// parseWMSize reads `wm size`: "Physical size: 1080x2400" and, if set, "Override size:
// 720x1600", which wins. The size is in the display's natural orientation.
func parseWMSize(out string) (device.Size, error) {
	var physical, override device.Size
	for line := range strings.Lines(out) {
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		w, h, ok := parseWxH(strings.TrimSpace(value))
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "Physical size":
			physical = device.Size{Width: w, Height: h}
		case "Override size":
			override = device.Size{Width: w, Height: h}
		}
	}
	switch {
	case override.Width > 0:
		return override, nil
	case physical.Width > 0:
		return physical, nil
	}
	return device.Size{}, fmt.Errorf("%w: `wm size` answered %s, not \"Physical size: WxH\"", ErrCommandFailed, quoteOutput(out))
}

// parseWxH reads "1080x2400".
func parseWxH(s string) (w, h int, ok bool) {
	ws, hs, ok := strings.Cut(s, "x")
	if !ok {
		return 0, 0, false
	}
	w, errW := strconv.Atoi(ws)
	h, errH := strconv.Atoi(hs)
	if errW != nil || errH != nil || w <= 0 || h <= 0 || w > maxDimension || h > maxDimension {
		return 0, 0, false
	}
	return w, h, true
}

// parseWMDensity reads `wm density`: "Physical density: 420" and, if set, "Override density:
// 320", which wins.
func parseWMDensity(out string) (int, error) {
	var physical, override int
	for line := range strings.Lines(out) {
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil || n <= 0 || n > maxDensity {
			continue
		}
		switch strings.TrimSpace(key) {
		case "Physical density":
			physical = n
		case "Override density":
			override = n
		}
	}
	switch {
	case override > 0:
		return override, nil
	case physical > 0:
		return physical, nil
	}
	return 0, fmt.Errorf("%w: `wm density` answered %s, not \"Physical density: N\"", ErrCommandFailed, quoteOutput(out))
}

// parseOrientation reads the touch screen's rotation from the first orientation line of
// `dumpsys input`, in quarter turns from the natural orientation (0–3). Android prints it as
// "SurfaceOrientation: 1" up to 12L, "InputDeviceOrientation: 1" on 13 and 14 and
// "InputDeviceOrientation: Rotation90" from 15. found is false when there is no such line.
func parseOrientation(out string) (rotation int, found bool, err error) {
	for line := range strings.Lines(out) {
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if key = strings.TrimSpace(key); !ok || key != "SurfaceOrientation" && key != "InputDeviceOrientation" {
			continue
		}
		value = strings.TrimSpace(value)
		n, err := strconv.Atoi(value)
		if degrees, named := strings.CutPrefix(value, "Rotation"); named {
			n, err = strconv.Atoi(degrees)
			if n%90 != 0 {
				err = errors.New("not a quarter turn")
			}
			n /= 90
		}
		if err != nil || n < 0 || n > 3 {
			return 0, false, fmt.Errorf("%w: %s is %s, not 0 to 3 (or Rotation0 to Rotation270)", ErrCommandFailed, key, quoteOutput(value))
		}
		return n, true, nil
	}
	return 0, false, nil
}

// rotate turns a natural-orientation size into the size of the screen at rotation: quarter
// turns 1 and 3 swap width and height.
func rotate(s device.Size, rotation int) device.Size {
	if rotation%2 == 1 {
		return device.Size{Width: s.Height, Height: s.Width}
	}
	return s
}
