package android

import (
	"context"
	"sync"
	"time"
)

// geometryCache remembers the display's geometry for sizeTTL, as screenCache does its size:
// every touch written to the panel needs it.
type geometryCache struct {
	mu sync.Mutex
	g  geometry
	at time.Time
}

// displayGeometry returns the display's size and rotation now, reused for up to a second. It
// asks with one command, `wm size; dumpsys input | grep Orientation` (what ScreenSize asks
// with two), and fills ScreenSize's cache too.
func (d *Driver) displayGeometry(ctx context.Context, op string) (geometry, error) {
	c := &d.geom
	c.mu.Lock()
	g, fresh := c.g, !c.at.IsZero() && time.Since(c.at) < sizeTTL
	c.mu.Unlock()
	if fresh {
		return g, nil
	}
	out, err := d.shell(ctx, op, "wm size; dumpsys input | grep Orientation")
	if err != nil {
		return geometry{}, err
	}
	natural, err := parseWMSize(out) // each parser reads its own lines

	if err != nil {
		return geometry{}, d.fail(ctx, op, err, "")
	}
	rotation, _, err := parseOrientation(out) // no line: natural orientation
	if err != nil {
		return geometry{}, d.fail(ctx, op, err, "")
	}
	g = geometry{size: rotate(natural, rotation), rotation: rotation}
	c.mu.Lock()
	c.g, c.at = g, time.Now()
	c.mu.Unlock()
	d.size.put(g.size)
	return g, nil
}
