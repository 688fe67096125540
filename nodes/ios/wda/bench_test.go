package wda_test

import (
	"testing"
)

// A screenshot and a tap through the client, over loopback HTTP to the simulator.
func BenchmarkScreenshot(b *testing.B) {
	f := newFarm(b, 750, 1334, 2)
	var n int
	for b.Loop() {
		png, err := f.c.Screenshot(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		n = len(png)
	}
	b.ReportMetric(float64(n), "png-bytes")
}

func BenchmarkTap(b *testing.B) {
	f := newFarm(b, 750, 1334, 2)
	for b.Loop() {
		if err := f.c.Tap(b.Context(), 10, 10); err != nil {
			b.Fatal(err)
		}
	}
}
