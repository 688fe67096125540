package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/android/adbsim"
)

// privateADB is an adb server of our own on a free loopback port, for simulated devices: a
// user's server on 5037 is never disturbed.
type privateADB struct {
	bin  string
	port int
}

func startPrivateADB(ctx context.Context) (*privateADB, error) {
	bin, err := exec.LookPath("adb")
	if err != nil {
		return nil, errors.New("--sim-android needs the adb tool: install it (Debian: apt-get install adb, or make setup)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	p := &privateADB{bin: bin, port: port}
	if out, err := p.run(ctx, "start-server"); err != nil {
		return nil, fmt.Errorf("start an adb server on port %d: %w: %s", port, err, out)
	}
	return p, nil
}

func (p *privateADB) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)) }

func (p *privateADB) run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p.bin, append([]string{"-P", strconv.Itoa(p.port)}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// connect asks the server to connect to a device on the network (a simulated one here).
func (p *privateADB) connect(ctx context.Context, addr string) error {
	out, err := p.run(ctx, "connect", addr)
	if err != nil || !strings.Contains(out, "connected to") {
		return fmt.Errorf("adb connect %s: %v: %s", addr, err, out)
	}
	return nil
}

func (p *privateADB) stop() { _, _ = p.run(context.Background(), "kill-server") }

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
		adb, err := startPrivateADB(ctx)
		if err != nil {
			stopAll()
			return nil, err
		}
		stops = append(stops, adb.stop)
		attach(adb.addr())
		for _, d := range farm.Devices() {
			if err := adb.connect(ctx, d.Addr()); err != nil {
				stopAll()
				return nil, err
			}
		}
		log.Info("simulated Android devices connected", "count", *s.sims, "adb_server", adb.addr())
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
