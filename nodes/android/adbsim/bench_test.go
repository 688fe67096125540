package adbsim

import (
	"context"
	"testing"
)

// BenchmarkScreencap measures `screencap -p` inside the device: render, transform, PNG.
func BenchmarkScreencap(b *testing.B) {
	for _, tc := range []struct {
		name  string
		setup string
		rot   int
	}{{"plain", "", 0}, {"override", "wm size 720x1600", 0}, {"rotated", "", 1}} {
		b.Run(tc.name, func(b *testing.B) {
			d, err := StartDevice(context.Background(), "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			_, _ = d.run(context.Background(), tc.setup)
			_ = d.SetRotation(tc.rot)
			for b.Loop() {
				_, _ = d.run(context.Background(), "screencap -p")
			}
		})
	}
}

// BenchmarkTap measures `input tap` inside the device.
func BenchmarkTap(b *testing.B) {
	d, err := StartDevice(context.Background(), "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	for b.Loop() {
		_, _ = d.run(context.Background(), "input tap 10 1500")
	}
}
