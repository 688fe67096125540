package sim

import (
	"context"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
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
