package rig

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// Platform is the arm as a node finds it: the rigs of a rigs file (--arm) and digital twins
// (--sim-arm N).
func Platform() device.Platform {
	return device.Platform{Name: device.PlatformArm, Driver: reflect.TypeFor[*Driver](), Flags: func(fs *flag.FlagSet) device.Attacher {
		return &setup{
			file: fs.String("arm", "", "YAML file of the arm rigs this node drives (docs/arm.md)"),
			sims: fs.Int("sim-arm", 0, "digital twins of arm rigs to start: a GRBL simulator over a simulated phone, seen by a simulated camera"),
		}
	}}
}

// setup says where a node finds its rigs.
type setup struct {
	file *string
	sims *int
}

// Real says whether rigs or twins are asked for.
func (s *setup) Real(context.Context) bool { return *s.file != "" || *s.sims > 0 }

// Attach starts the twins and connects the rigs of the file; each joins reg once it is
// connected and calibrated, and leaves it when its controller's link is lost.
func (s *setup) Attach(ctx context.Context, reg device.Registry, log *slog.Logger) (func(), error) {
	var rigs []RigSpec
	if *s.file != "" {
		var err error
		if rigs, err = ReadRigs(*s.file); err != nil {
			return nil, fmt.Errorf("--arm %s: %w", *s.file, err)
		}
	}
	var stops []func()
	stop := func() {
		for _, f := range stops {
			f()
		}
	}
	for i := 1; i <= *s.sims; i++ {
		serial := twinSerial(reg, i, *s.sims)
		// The twin's own lines (its phone, its controller) name the rig it simulates.
		st, err := startTwin(ctx, reg, twin.Options{Seed: int64(i), Serial: serial, Log: rigLog(log, serial)}, log)
		if err != nil {
			stop()
			return nil, fmt.Errorf("arm twin %d: %w", i, err)
		}
		stops = append(stops, st)
	}
	if len(rigs) > 0 {
		rctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for _, r := range rigs {
			wg.Go(func() { keepRig(rctx, reg, r, log) })
		}
		stops = append(stops, func() { cancel(); wg.Wait() })
	}
	return stop, nil
}

// twinSerial names the i-th (from 1) of count twins of --sim-arm: arm-twin-<node>-01 and on,
// padded to the width of count (sim.Numbered). A rig's calibration and halt are kept by its
// serial: the node's id keeps its twins apart from another node's (which would otherwise share
// one calibration, and be ambiguous in a call), and the same node and count give the same
// serials at every start, so a restarted twin finds its calibration. A registry that is no
// node gets arm-twin-01 and on.
func twinSerial(reg device.Registry, i, count int) string {
	prefix := "arm-twin"
	if n, ok := reg.(interface{ ID() string }); ok && n.ID() != "" {
		prefix += "-" + n.ID()
	}
	return sim.Numbered(prefix, i, count)
}

// startTwin starts a twin and serves it; stop also closes it.
func startTwin(ctx context.Context, reg device.Registry, o twin.Options, log *slog.Logger) (func(), error) {
	tw, err := twin.Start(o)
	if err != nil {
		return nil, err
	}
	stop, err := ServeTwin(ctx, reg, tw, log)
	if err != nil {
		_ = tw.Close()
		return nil, err
	}
	return func() { stop(); _ = tw.Close() }, nil
}

// twinLink are the timeouts of a link to a twin: the controller is in this process, so a
// status report late by seconds is this machine's load (a test suite on two cores, under the
// race detector), not a lost cable; a closed connection still counts at once.
func twinLink(more ...grbl.Option) []grbl.Option {
	return append([]grbl.Option{grbl.WithLinkTimeout(15 * time.Second), grbl.WithReplyTimeout(15 * time.Second)}, more...)
}

// ServeTwin drives the digital twin tw as a rig of reg: the driver talks GRBL to the twin's
// controller over loopback TCP, calibrates against it (a few seconds at real speed) and joins
// reg, until ctx ends or stop is called. The caller closes tw after stop.
func ServeTwin(ctx context.Context, reg device.Registry, tw *twin.Twin, log *slog.Logger) (stop func(), err error) {
	// The twin's phone takes the text as a helper app on it would; the twin is simulated,
	// tagged as the --sim-ios iPhones are.
	return serveTwin(ctx, reg, tw, log, Config{Model: "iPhone (twin)", Clipboard: tw.Phone, Tags: []string{device.SimulatedTag}})
}

// serveTwin is ServeTwin with the rig's cfg (its Serial is the twin phone's).
func serveTwin(ctx context.Context, reg device.Registry, tw *twin.Twin, log *slog.Logger, cfg Config) (stop func(), err error) {
	addr, err := tw.GRBL.ServeTCP("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		serial := tw.Phone.Info().Serial
		log := rigLog(log, serial)
		c, err := grbl.DialTCP(ctx, addr, twinLink(grbl.WithLogger(log))...)
		if err != nil {
			log.Error("arm twin: cannot reach its controller", "err", err)
			return
		}
		cfg.Serial = serial
		d, err := New(cfg, c, twinCamera{tw.Camera}, nil, log)
		if err != nil {
			_ = c.Close()
			log.Error("arm twin", "err", err)
			return
		}
		lo, hi := tw.RoughArea()
		if err := calibrate(ctx, reg, d, tw, Area{Min: lo, Max: hi}, log); err != nil {
			_ = d.Close()
			log.Error("arm twin: calibration failed", "err", err)
			reg.RemoveDevice(serial, "arm twin: calibration failed: "+err.Error()) // it showed calibrating meanwhile
			return
		}
		if cal := d.Calibration(); cal != nil {
			log.Info("arm twin ready", "grbl", addr, "validation_error_mm", cal.ValidationErrMM, "residual_p95_mm", cal.ResidualP95MM)
		} else { // halted from before: served uncalibrated until a person recovers it
			log.Info("arm twin ready, halted and not calibrated", "grbl", addr)
		}
		serve(ctx, reg, d, c)
	}()
	return func() { cancel(); <-done }, nil
}

// twinCamera is a twin's camera as its rig's driver holds it: the twin closes it, not the
// driver, so that the twin can be driven again.
type twinCamera struct{ Camera }

func (twinCamera) Close() error { return nil }

// serve keeps a rig on reg until its link is lost or ctx ends; reg then closes its driver.
func serve(ctx context.Context, reg device.Registry, d *Driver, c *grbl.Client) {
	reg.AddDriver(d)
	select {
	case <-c.Done():
		reg.RemoveDevice(d.info.Serial, fmt.Sprintf("arm controller link lost: %v", c.Err()))
	case <-ctx.Done():
		reg.RemoveDevice(d.info.Serial, "the arm rig was stopped")
	}
}
