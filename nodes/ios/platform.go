package ios

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// Platform is iOS as a node finds it: the iPhones of a usbmuxd (--usbmuxd), driven through
// WebDriverAgent, and simulated ones behind a usbmuxd of their own (--sim-ios). iPhones have
// no BACK key.
func Platform() device.Platform {
	return device.Platform{Name: device.PlatformIOS, Driver: reflect.TypeFor[*Driver](), Gaps: []string{"back"},
		Flags: func(fs *flag.FlagSet) device.Attacher {
			return &setup{
				usbmuxd: fs.String("usbmuxd", "auto", "usbmuxd to take iPhones from: auto (USBMUXD_SOCKET_ADDRESS, else /var/run/usbmuxd if it is there), off, a socket path or host:port"),
				sims:    fs.Int("sim-ios", 0, "simulated iPhones to start, behind a simulated usbmuxd of their own (docs/ios.md)"),
				port:    fs.Uint("wda-port", DefaultWDAPort, "the port WebDriverAgent listens on, on the iPhones"),
				launch:  fs.String("wda-launch", "xctest", "how to start WebDriverAgent when it does not answer: xctest (go-ios's testmanagerd runner, iOS 16 and earlier), none (the farm runs it), or a command with {udid} (no shell)"),
				rate:    fs.Float64("wda-rate", DefaultRate, "WebDriverAgent requests a second a device takes at most"),
			}
		}}
}

type setup struct {
	usbmuxd, launch *string
	sims            *int
	port            *uint
	rate            *float64
}

// mux is the usbmuxd to attach, false for none.
func (s *setup) mux() (Mux, bool) {
	switch a := *s.usbmuxd; a {
	case "off", "":
		return Mux{}, false
	case "auto":
		if os.Getenv("USBMUXD_SOCKET_ADDRESS") != "" {
			return EnvMux(), true
		}
		if _, err := os.Stat(DefaultUsbmuxd); err != nil {
			return Mux{}, false
		}
		return ParseMux(DefaultUsbmuxd), true
	default:
		return ParseMux(a), true
	}
}

// Real says whether simulated iPhones are asked for or usbmuxd lists one now.
func (s *setup) Real(ctx context.Context) bool {
	if *s.sims > 0 {
		return true
	}
	m, ok := s.mux()
	if !ok {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	list, err := m.List(ctx)
	return err == nil && len(list) > 0
}

// launcher is what --wda-launch names.
func (s *setup) launcher(log *slog.Logger) Launcher {
	switch *s.launch {
	case "none", "":
		return nil
	case "xctest":
		return &XCTestLauncher{Log: log}
	}
	return &CommandLauncher{Args: strings.Fields(*s.launch), Log: log}
}

// Attach starts the simulated iPhones asked for and follows the usbmuxds.
func (s *setup) Attach(ctx context.Context, reg device.Registry, log *slog.Logger) (func(), error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if *s.port == 0 || *s.port > 65535 {
		return nil, fmt.Errorf("--wda-port %d: not a port", *s.port)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var sims *Sims
	stop := func() {
		cancel()
		wg.Wait()
		if sims != nil {
			_ = sims.Close()
		}
	}
	attach := func(o AttachOptions) {
		o.Rate, o.Log = *s.rate, log
		if o.WDAPort == 0 {
			o.WDAPort = uint16(*s.port)
		}
		wg.Go(func() { Attach(ctx, reg, o) })
	}
	if *s.sims > 0 {
		var err error
		if sims, err = StartNodeSims(nodeID(reg), *s.sims, "127.0.0.1:0", log); err != nil {
			stop()
			return nil, err
		}
		attach(AttachOptions{Mux: ParseMux(sims.Addr()), WDAPort: DefaultWDAPort, Launcher: sims.Launcher(), Tags: []string{device.SimulatedTag}})
		log.Info("simulated iPhones started", "count", *s.sims, "usbmuxd", sims.Addr())
	}
	if m, ok := s.mux(); ok {
		attach(AttachOptions{Mux: m, Launcher: s.launcher(log)})
	}
	return stop, nil
}

// nodeID is the id of the node reg is, "" for a registry that is no node: its simulated
// iPhones are named after it (StartNodeSims).
func nodeID(reg device.Registry) string {
	if n, ok := reg.(interface{ ID() string }); ok {
		return n.ID()
	}
	return ""
}
