package adbsim

import (
	"strconv"
	"strings"
)

// cmdWm runs `wm size [WxH|reset]` and `wm density [DPI|reset]`.
func cmdWm(d *Device, c *call) int {
	if len(c.args) < 2 || len(c.args) > 3 {
		c.errorf("Window manager (window) commands:\n  size [reset|WxH|WdpxHdp]\n  density [reset|DENSITY]\n")
		return 1
	}
	set := ""
	if len(c.args) == 3 {
		set = c.args[2]
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	s := &d.disp
	switch c.args[1] {
	case "size":
		switch set {
		case "":
			c.printf("Physical size: %dx%d\n", s.physW, s.physH)
			if s.overW > 0 {
				c.printf("Override size: %dx%d\n", s.overW, s.overH)
			}
		case "reset":
			s.overW, s.overH = 0, 0
		default:
			w, h, ok := parseSize(set)
			if !ok {
				c.errorf("Error: bad size %s\n", set)
				return 1
			}
			if w == s.physW && h == s.physH {
				w, h = 0, 0 // setting the physical size is a reset
			}
			s.overW, s.overH = w, h
		}
	case "density":
		switch set {
		case "":
			c.printf("Physical density: %d\n", s.density)
			if s.overDensity > 0 {
				c.printf("Override density: %d\n", s.overDensity)
			}
		case "reset":
			s.overDensity = 0
		default:
			n, err := strconv.Atoi(set)
			if err != nil || n < 72 || n > 4000 {
				c.errorf("Error: bad density %s\n", set)
				return 1
			}
			if n == s.density {
				n = 0
			}
			s.overDensity = n
		}
	default:
		c.errorf("Error: unknown command '%s'\n", c.args[1])
		return 1
	}
	return 0
}

// parseSize reads "WxH" with sane bounds.
func parseSize(s string) (w, h int, ok bool) {
	ws, hs, found := strings.Cut(s, "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	ok = found && err1 == nil && err2 == nil && w >= 100 && h >= 100 && w <= 8192 && h <= 8192
	return w, h, ok
}
