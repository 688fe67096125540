package ios

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/corral-farm/corral/nodes/ios/iossim"
	"github.com/corral-farm/corral/nodes/ios/wdasim"
	"github.com/corral-farm/corral/nodes/sim"
)

// SimScale is a simulated iPhone's scale: 750x1334 pixels are 375x667 points, an iPhone SE.
const SimScale = 2

// Sims are simulated iPhones behind a simulated usbmuxd on TCP: each one's lockdown,
// installation_proxy and AFC speak the real protocols, and WebDriverAgent answers on its port
// 8100 over a simulated phone. go-ios (and so Corral's driver) reaches them with
// USBMUXD_SOCKET_ADDRESS set to Addr.
type Sims struct {
	Host    *iossim.Host
	devices []*SimDevice
}

// SimDevice is one simulated iPhone: its USB side and its WebDriverAgent's phone.
type SimDevice struct {
	*iossim.Device
	Phone *sim.Phone
	wda   atomic.Pointer[wdasim.Server]
}

// WDA is the device's WebDriverAgent now (a new one after each restart).
func (d *SimDevice) WDA() *wdasim.Server { return d.wda.Load() }

// StartSims starts n simulated iPhones, ios-sim-01 and on, behind a usbmuxd at addr
// (127.0.0.1:0 for a free port).
func StartSims(n int, addr string, log *slog.Logger) (*Sims, error) {
	host, err := iossim.Start(addr, log)
	if err != nil {
		return nil, fmt.Errorf("simulated usbmuxd: %w", err)
	}
	s := &Sims{Host: host}
	for i := range n {
		udid := fmt.Sprintf("ios-sim-%02d", i+1)
		dev, err := iossim.NewDevice(iossim.Config{UDID: udid, Name: fmt.Sprintf("Corral iPhone %02d", i+1), DeveloperMode: true})
		if err != nil {
			_ = host.Close()
			return nil, err
		}
		sd := &SimDevice{Device: dev, Phone: sim.New(udid, sim.WithSize(375*SimScale, 667*SimScale))}
		sd.restartWDA()
		s.devices = append(s.devices, sd)
		host.Attach(dev)
	}
	return s, nil
}

// restartWDA serves a fresh WebDriverAgent (no sessions) over the same phone.
func (d *SimDevice) restartWDA() {
	w := wdasim.New(d.Phone, SimScale)
	d.wda.Store(w)
	d.Handle(DefaultWDAPort, w)
}

// Devices are the simulated iPhones.
func (s *Sims) Devices() []*SimDevice { return s.devices }

// Addr is the simulated usbmuxd's address, as USBMUXD_SOCKET_ADDRESS takes it.
func (s *Sims) Addr() string { return s.Host.Addr() }

// Launcher restarts a simulated iPhone's WebDriverAgent, as go-ios's runner restarts a real one.
func (s *Sims) Launcher() Launcher {
	return LauncherFunc(func(_ context.Context, udid string) error {
		for _, d := range s.devices {
			if d.UDID() == udid {
				d.restartWDA()
				return nil
			}
		}
		return fmt.Errorf("no simulated iPhone %s", udid)
	})
}

// Close stops the usbmuxd and the devices behind it.
func (s *Sims) Close() error { return s.Host.Close() }
