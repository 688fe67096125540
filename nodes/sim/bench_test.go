package sim

import (
	"context"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// BenchmarkScreenshot renders each kind of screen at 1080x2400.
func BenchmarkScreenshot(b *testing.B) {
	ctx := context.Background()
	setups := []struct {
		name string
		set  func(p *Phone)
	}{
		{"home", func(p *Phone) {}},
		{"settings", func(p *Phone) { _ = p.LaunchApp(ctx, "com.corral.settings") }},
		{"shop", func(p *Phone) { _ = p.LaunchApp(ctx, "com.corral.shop") }},
		{"notes", func(p *Phone) {
			_ = p.LaunchApp(ctx, "com.corral.notes")
			_ = p.InputText(ctx, "The quick brown fox jumps over the lazy dog. Again and again and again.")
		}},
		{"lock", func(p *Phone) { _ = p.PressKey(ctx, "POWER") }},
	}
	for _, s := range setups {
		b.Run(s.name, func(b *testing.B) {
			p := New("bench")
			s.set(p)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := p.Screenshot(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkSource(b *testing.B) {
	ctx := context.Background()
	p := New("bench")
	_ = p.LaunchApp(ctx, "com.corral.shop")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Source(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTap(b *testing.B) {
	ctx := context.Background()
	p := New("bench")
	b.ReportAllocs()
	for b.Loop() {
		// Settings icon, then BACK: two screens built per round.
		if err := p.Tap(ctx, device.Point{X: 135, Y: 865}, 0); err != nil {
			b.Fatal(err)
		}
		if err := p.PressKey(ctx, "BACK"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNew reports what an idle phone costs (B/op).
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = New("SIM-00001")
	}
}

// BenchmarkLook is one console frame of an unchanged home screen, as the node makes it: the
// screen scaled to the grid's 360 px and encoded (tools.ScreenJPEG).
func BenchmarkLook(b *testing.B) {
	ctx := context.Background()
	p := New("bench")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := tools.ScreenJPEG(ctx, p, 360); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScreenshotChanged draws a screen that changed since the last screenshot: the
// volume goes up and down, its toast and the status bar with it.
func BenchmarkScreenshotChanged(b *testing.B) {
	ctx := context.Background()
	p := New("bench")
	keys := []string{"VOLUME_UP", "VOLUME_DOWN"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := p.PressKey(ctx, keys[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
		if _, err := p.Screenshot(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
