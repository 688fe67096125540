package adbsim

import (
	"fmt"
	"image"
	"math"
	"regexp"
	"strconv"

	"github.com/corral-farm/corral/nodes/device"
	"golang.org/x/image/draw"
)

const defaultDensity = 420

// display is the screen as Android reports it: the phone's physical pixels, the overrides of
// `wm size` and `wm density`, and the rotation (0-3, quarter turns; 1 and 3 are landscape).
//
// Three frames: the phone's pixels (W×H), the natural frame (the override size, or W×H) and the
// display frame (the natural frame rotated). Rotation r shows the natural frame turned r quarter
// turns counter-clockwise, so in rotation 1 the natural top-right corner is the display's
// top-left.
type display struct {
	physW, physH int
	overW, overH int // 0: no override
	density      int
	overDensity  int // 0: no override
	rotation     int
}

// natural is the size `wm size` reports as in force: the override, else the physical size.
func (s display) natural() (w, h int) {
	if s.overW > 0 {
		return s.overW, s.overH
	}
	return s.physW, s.physH
}

// size is the size of the display frame: natural, turned.
func (s display) size() (w, h int) {
	w, h = s.natural()
	if s.rotation%2 == 1 {
		return h, w
	}
	return w, h
}

func (s display) identity() bool { return s.overW == 0 && s.rotation == 0 }

// toPhone maps a display pixel to the phone pixel under its centre. Points off the display map
// off the phone, so the phone still refuses them.
func (s display) toPhone(x, y float64) device.Point {
	nw, nh := s.natural()
	x, y = x+0.5, y+0.5
	var u, v float64
	switch s.rotation {
	case 1:
		u, v = float64(nw)-y, x
	case 2:
		u, v = float64(nw)-x, float64(nh)-y
	case 3:
		u, v = y, float64(nh)-x
	default:
		u, v = x, y
	}
	return device.Point{
		X: int(math.Floor(u * float64(s.physW) / float64(nw))),
		Y: int(math.Floor(v * float64(s.physH) / float64(nh))),
	}
}

// fromPhone maps a point of the phone (continuous, corners of pixels) to the display frame.
func (s display) fromPhone(px, py float64) (x, y float64) {
	nw, nh := s.natural()
	u, v := px*float64(nw)/float64(s.physW), py*float64(nh)/float64(s.physH)
	switch s.rotation {
	case 1:
		return v, float64(nw) - u
	case 2:
		return float64(nw) - u, float64(nh) - v
	case 3:
		return float64(nh) - v, u
	}
	return u, v
}

// rectFromPhone maps a rectangle of phone pixels to the display frame.
func (s display) rectFromPhone(r image.Rectangle) image.Rectangle {
	x0, y0 := s.fromPhone(float64(r.Min.X), float64(r.Min.Y))
	x1, y1 := s.fromPhone(float64(r.Max.X), float64(r.Max.Y))
	round := func(f float64) int { return int(math.Round(f)) }
	return image.Rect(round(x0), round(y0), round(x1), round(y1)) // Rect orders the corners
}

// image turns a screenshot of the phone into what the display shows: scaled to the natural
// size, then rotated.
func (s display) image(src image.Image) image.Image {
	if s.identity() {
		return src
	}
	nw, nh := s.natural()
	nat, ok := src.(*image.RGBA)
	if !ok || nw != s.physW || nh != s.physH {
		nat = image.NewRGBA(image.Rect(0, 0, nw, nh))
		draw.ApproxBiLinear.Scale(nat, nat.Bounds(), src, src.Bounds(), draw.Src, nil)
	}
	if s.rotation == 0 {
		return nat
	}
	dw, dh := s.size()
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	// Display pixel (x, y) comes from natural pixel (u, v) = (u0 + x*dux + y*duy, v0 + x*dvx + y*dvy).
	u0, dux, duy, v0, dvx, dvy := 0, 0, 0, 0, 0, 0
	switch s.rotation {
	case 1:
		u0, duy, dvx = nw-1, -1, 1
	case 2:
		u0, dux, v0, dvy = nw-1, -1, nh-1, -1
	case 3:
		duy, v0, dvx = 1, nh-1, -1
	}
	step := 4*dux + nat.Stride*dvx // source offset per display pixel to the right
	for y := range dh {
		row := dst.Pix[y*dst.Stride : y*dst.Stride+4*dw]
		src := 4*(u0+y*duy) + nat.Stride*(v0+y*dvy)
		for x := 0; x < len(row); x += 4 {
			sp := nat.Pix[src : src+4 : src+4]
			row[x], row[x+1], row[x+2], row[x+3] = sp[0], sp[1], sp[2], sp[3]
			src += step
		}
	}
	return dst
}

var (
	boundsAttr   = regexp.MustCompile(`bounds="\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]"`)
	rotationAttr = regexp.MustCompile(`<hierarchy rotation="\d"`)
)

// source rewrites a uiautomator dump of the phone into the display frame: every bounds
// attribute, and the hierarchy's rotation.
func (s display) source(xml string) string {
	if s.identity() {
		return xml
	}
	xml = rotationAttr.ReplaceAllLiteralString(xml, fmt.Sprintf(`<hierarchy rotation="%d"`, s.rotation))
	return boundsAttr.ReplaceAllStringFunc(xml, func(m string) string {
		g := boundsAttr.FindStringSubmatch(m)
		var n [4]int
		for i := range n {
			n[i], _ = strconv.Atoi(g[i+1]) // the pattern admits only digits
		}
		r := s.rectFromPhone(image.Rect(n[0], n[1], n[2], n[3]))
		return fmt.Sprintf(`bounds="[%d,%d][%d,%d]"`, r.Min.X, r.Min.Y, r.Max.X, r.Max.Y)
	})
}

// SetRotation sets the rotation `dumpsys input` reports (0-3: quarter turns; 1 and 3 are
// landscape, so width and height swap). Input, screenshots and UI bounds follow it.
func (d *Device) SetRotation(r int) error {
	if r < 0 || r > 3 {
		return fmt.Errorf("adbsim: rotation %d: use 0, 1, 2 or 3", r)
	}
	d.mu.Lock()
	d.disp.rotation = r
	d.mu.Unlock()
	return nil
}

func (d *Device) currentDisplay() display {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.disp
}
