package bench

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// BenchmarkArm taps the phone under a digital twin's gantry at real speed (a belt gantry:
// 500 mm/s, 4000 mm/s², a solenoid finger settling in 30 ms and touching 80 ms) through the
// front door: tap at the centres of bboxes spread over the screen, over MCP streamable HTTP,
// from the call to its answer, which comes once the finger is up again (the driver ends every
// gesture with a G4 barrier). Target: p50 ≤ 0.5 s from call to finger lifted.
func BenchmarkArm(b *testing.B) {
	f := farmtest.StartEmpty(b, farmtest.Options{Quiet: true, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	if err := f.StartNodes(0, "n1"); err != nil {
		b.Fatal(err)
	}
	tw := f.StartArmTwin("n1", 1, 1)
	serial := tw.Phone.Info().Serial
	b.Run("op=tap", func(b *testing.B) {
		c := httpClient(b, f, "bench-arm")
		lease := leaseHandle(b, c, map[string]any{"serial": serial})
		defer func() { _, _ = call(c, "release_device", map[string]any{"lease": lease}) }() // -count runs this again
		rng := rand.New(rand.NewPCG(1, 2))
		var lat []time.Duration
		for b.Loop() {
			x, y := 0.1+0.7*rng.Float64(), 0.1+0.7*rng.Float64()
			start := time.Now()
			if _, err := call(c, "tap", map[string]any{"serial": serial, "lease": lease, "bbox": []float64{x, y, x + 0.1, y + 0.05}}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(start))
		}
		reportLatency(b, "", lat)
	})
}
