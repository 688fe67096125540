package tools_test

import (
	"bytes"
	"context"
	"image"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// look is one look through c, which must succeed.
func look(t *testing.T, c *tools.LookCache, drv device.Driver, width int) ([]byte, image.Point) {
	t.Helper()
	data, size, err := c.ScreenJPEG(context.Background(), drv, width)
	if err != nil {
		t.Fatal(err)
	}
	return data, size
}

// fresh is the look made anew, without a cache.
func fresh(t *testing.T, drv device.Driver, width int) []byte {
	t.Helper()
	data, _, err := tools.ScreenJPEG(context.Background(), drv, width)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A look at an unchanged screen at the same width is the last look's JPEG, not scaled and
// encoded again (a simulated phone hands out the same frame while its screen is unchanged);
// a changed screen or another width makes a new one, equal to one made without a cache.
func TestLookCacheKeepsTheLastLook(t *testing.T) {
	ctx := context.Background()
	p := sim.New("SIM-LOOK")
	var c tools.LookCache
	first, size := look(t, &c, p, 360)
	if size.X != 360 || !bytes.Equal(first, fresh(t, p, 360)) {
		t.Fatalf("first look: %v, or not the JPEG made without a cache", size)
	}
	again, size2 := look(t, &c, p, 360)
	if &again[0] != &first[0] || size2 != size {
		t.Fatal("a look at the unchanged screen was made again, not answered from the cache")
	}

	wide, size := look(t, &c, p, 720)
	if size.X != 720 || &wide[0] == &first[0] || !bytes.Equal(wide, fresh(t, p, 720)) {
		t.Fatalf("a look at another width: %v, from the cache or unlike one made without it", size)
	}

	if err := p.PressKey(ctx, "VOLUME_UP"); err != nil { // a toast and the status bar change
		t.Fatal(err)
	}
	changed, _ := look(t, &c, p, 720)
	if bytes.Equal(changed, wide) || !bytes.Equal(changed, fresh(t, p, 720)) {
		t.Fatal("a look at a changed screen: the last look's JPEG, or unlike one made without a cache")
	}
	if again, _ := look(t, &c, p, 720); &again[0] != &changed[0] {
		t.Fatal("a look at the changed screen, unchanged since, was made again")
	}
}

// BenchmarkLookCache is one console frame of an unchanged simulated home screen at the grid's
// 360 px: made each time (ScreenJPEG, as before the cache) and through a device's LookCache.
func BenchmarkLookCache(b *testing.B) {
	ctx := context.Background()
	for _, cached := range []bool{false, true} {
		name := "uncached"
		if cached {
			name = "cached"
		}
		b.Run(name, func(b *testing.B) {
			p := sim.New("SIM-BENCH")
			var c *tools.LookCache
			if cached {
				c = &tools.LookCache{}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := c.ScreenJPEG(ctx, p, 360); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
