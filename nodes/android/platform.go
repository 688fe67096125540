package android

import (
	"context"
	"flag"
	"log/slog"
	"net"
	"reflect"
	"time"

	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
)

// Platform is Android as a node finds it: the devices of an adb server (--adb) and simulated
// ones behind a private adb server (--sim-android). Its drivers have every optional ability, so
// it has no gaps.
func Platform() device.Platform {
	return device.Platform{Name: device.PlatformAndroid, Driver: reflect.TypeFor[*Driver](), Flags: func(fs *flag.FlagSet) device.Attacher {
		return &setup{
			adb:  fs.String("adb", "auto", "adb server to take Android devices from: auto (ANDROID_ADB_SERVER_PORT or 5037, waited for quietly until it answers), off, or host:port"),
			sims: fs.Int("sim-android", 0, "simulated Android devices to start, connected through a private adb server"),
			simStartup: fs.Duration("sim-android-input-startup", adbsim.DefaultInputStartup,
				"how long an input command takes to start on the simulated Android devices (a phone's Java start-up: 100 ms to over 1 s)"),
		}
	}}
}

// setup says where a node finds Android devices.
type setup struct {
	adb        *string        // adb server to attach: "auto" (the local one, once it answers), "off", or host:port
	sims       *int           // simulated Android devices, behind a private adb server
	simStartup *time.Duration // how long `input` takes to start on them
}

// Real says whether simulated Android devices are asked for or the adb server to attach lists
// a ready device now.
func (s *setup) Real(ctx context.Context) bool {
	if *s.sims > 0 {
		return true
	}
	adb := *s.adb
	switch adb {
	case "off", "":
		return false
	case "auto":
		adb = ServerAddr()
	}
	if !answers(adb) { // Watch would wait for it
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	events, err := Watch(ctx, adb)
	if err != nil {
		return false
	}
	for e := range events {
		if e.Kind == Added {
			return true
		}
	}
	return false
}

// Attach gives reg the Android devices of an adb server, and starts simulated ones if asked.
// The returned function stops what it started.
func (s *setup) Attach(ctx context.Context, reg device.Registry, log *slog.Logger) (func(), error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var stops []func()
	stopAll := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	attach := func(addr string, opts ...AttachOption) {
		actx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			// Attach waits for an adb server that does not answer yet; it fails only on an
			// address that is not host:port.
			if err := Attach(actx, reg, addr, log, opts...); err != nil {
				log.Warn("android devices not attached", "adb_server", addr, "err", err)
			}
		}()
		stops = append(stops, func() { cancel(); <-done })
	}
	if *s.sims > 0 {
		farm, err := adbsim.Start(ctx, *s.sims, "127.0.0.1:0", adbsim.WithLogger(log), adbsim.WithInputStartup(*s.simStartup))
		if err != nil {
			return nil, err
		}
		stops = append(stops, func() { _ = farm.Close() })
		adb, err := StartPrivateServer(ctx, WithServerLogger(log))
		if err != nil {
			stopAll()
			return nil, err
		}
		stops = append(stops, adb.Stop)
		// The node knows the passcodes of the phones it simulates, as it knows the --sim
		// phones': unlock_phone needs no --passcodes for them.
		codes := map[string]string{}
		for _, d := range farm.Devices() {
			codes[d.Serial()] = d.Phone().Passcode()
		}
		// Tagged as the --sim phones and --sim-ios iPhones are: callers filter on it, and a
		// restarted node removes the registry entries of those it no longer has (nodes.Start).
		// Named after the node, the same at each start (simSerials), not by their ports.
		attach(adb.Addr(), WithTags(device.SimulatedTag), WithPrivateServer(adb), WithPasscodes(codes), WithSerialNames(simSerials(reg, farm)))
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
		// Followed even if it does not answer yet: on a developer's machine the first adb
		// command (adb devices, Android Studio) starts it, often after the node.
		addr, badPort := serverAddr()
		if badPort != "" { // the farm would follow another adb server than the one meant
			log.Warn("ANDROID_ADB_SERVER_PORT is not a port: using the adb server's default port; set it to a port (1-65535), "+
				"as adb itself wants it, or unset it", "ANDROID_ADB_SERVER_PORT", badPort, "port", DefaultServerPort)
		}
		attach(addr, QuietUntilUp())
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
