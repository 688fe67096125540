package main

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/android/adbsim"
)

// androidSetup says where a node finds Android devices.
type androidSetup struct {
	adb  *string // adb server to attach: "auto" (if one answers), "off", or host:port
	sims *int    // simulated Android devices, behind a private adb server
}

func (f *flags) androidFlags() androidSetup {
	return androidSetup{
		adb:  f.String("adb", "auto", "adb server to take Android devices from: auto (ANDROID_ADB_SERVER_PORT or 5037, if it answers), off, or host:port"),
		sims: f.Int("sim-android", 0, "simulated Android devices to start, connected through a private adb server"),
	}
}

// attachAndroid gives the node the Android devices of an adb server, and starts simulated ones
// if asked. The returned function stops what it started.
func attachAndroid(ctx context.Context, n *nodes.Node, s androidSetup, log *slog.Logger) (func(), error) {
	var stops []func()
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	attach := func(addr string) {
		actx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := android.Attach(actx, n, addr, log); err != nil {
				log.Warn("android devices not attached", "adb_server", addr, "err", err)
			}
		}()
		stops = append(stops, func() { cancel(); <-done })
	}
	if *s.sims > 0 {
		farm, err := adbsim.Start(ctx, *s.sims, "127.0.0.1:0", adbsim.WithLogger(log))
		if err != nil {
			return nil, err
		}
		stops = append(stops, func() { _ = farm.Close() })
		adb, err := android.StartPrivateServer(ctx)
		if err != nil {
			stopAll()
			return nil, err
		}
		stops = append(stops, adb.Stop)
		attach(adb.Addr())
		for _, d := range farm.Devices() {
			if err := adb.Connect(ctx, d.Addr()); err != nil {
				stopAll()
				return nil, err
			}
		}
		log.Info("simulated Android devices connected", "count", *s.sims, "adb_server", adb.Addr())
	}
	switch addr := *s.adb; addr {
	case "off", "":
	case "auto":
		if addr = android.ServerAddr(); answers(addr) {
			attach(addr)
		}
	default:
		attach(addr)
	}
	return stopAll, nil
}

// answers says whether something listens at addr.
func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}
