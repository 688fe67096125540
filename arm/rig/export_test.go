package rig

import (
	"context"
	"log/slog"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/nodes/device"
)

// ServeTwinWithoutClipboard is ServeTwin with a rig that has no clipboard helper, as a rigs
// file without clipboard: makes one; its twin's camera is read in-process, as ServeTwin's is
// (an HTTP camera under a loaded race-detector run can miss the calibration page).
func ServeTwinWithoutClipboard(ctx context.Context, reg device.Registry, tw *twin.Twin, log *slog.Logger) (stop func(), err error) {
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
		d, err := New(Config{Serial: serial, Model: "iPhone (twin)", Tags: []string{device.SimulatedTag}}, c, twinCamera{tw.Camera}, nil, log)
		if err != nil {
			_ = c.Close()
			log.Error("arm twin", "err", err)
			return
		}
		lo, hi := tw.RoughArea()
		if err := calibrate(ctx, reg, d, tw, Area{Min: lo, Max: hi}, log); err != nil {
			_ = d.Close()
			log.Error("arm twin: calibration failed", "err", err)
			return
		}
		serve(ctx, reg, d, c)
	}()
	return func() { cancel(); <-done }, nil
}
