package rig

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/internal/logtest"
)

// A digital twin is tagged "sim", as the --sim-ios iPhones are: without it a policy's
// tags: [sim] missed the twins, and a restarted node's cleanup of its simulated devices left
// an offline twin in the registry for good. A rig of a rigs file is real, and untagged.
func TestTwinsAreTaggedSimAndRigsFileRigsAreNot(t *testing.T) {
	t.Run("twin", func(t *testing.T) {
		tw, err := twin.Start(twin.Options{Seed: 4, Speed: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tw.Close() })
		var out logtest.Buffer
		reg := servedDrivers{added: make(chan *Driver, 1)}
		stop, err := ServeTwin(context.Background(), reg, tw, slog.New(slog.NewTextHandler(&out, nil)))
		if err != nil {
			t.Fatal(err)
		}
		d := waitDriver(t, reg, &out)
		t.Cleanup(func() { stop(); _ = d.Close() })
		if tags := d.Info().Tags; !slices.Equal(tags, []string{"sim"}) {
			t.Fatalf("the twin's tags are %q, want [sim]", tags)
		}
	})
	t.Run("rigs file", func(t *testing.T) {
		spec := twinRigSpec(t)
		var out logtest.Buffer
		reg := leftHalted{servedDrivers{added: make(chan *Driver, 1)}}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			keepRig(ctx, reg, spec, slog.New(slog.NewTextHandler(&out, nil)))
		}()
		d := waitDriver(t, reg.servedDrivers, &out)
		t.Cleanup(func() { cancel(); <-done; _ = d.Close() })
		if tags := d.Info().Tags; len(tags) != 0 {
			t.Fatalf("a rigs file's rig is tagged %q, want no tags", tags)
		}
	})
}
