package ios

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
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

// simUDIDPrefix begins the UDIDs of simulated iPhones, as android-sim- the --sim-android
// devices' serials and sim- the --sim phones'.
const simUDIDPrefix = "ios-sim"

// StartSims starts n simulated iPhones, ios-sim-01 and on, behind a usbmuxd at addr
// (127.0.0.1:0 for a free port): `corral sim ios`'s, which belong to no node.
func StartSims(n int, addr string, log *slog.Logger) (*Sims, error) {
	udids := make([]string, n)
	for i := range udids {
		udids[i] = fmt.Sprintf("%s-%02d", simUDIDPrefix, i+1)
	}
	return startSims(udids, addr, log)
}

// StartNodeSims starts node's n simulated iPhones (--sim-ios), ios-sim-<node>-01 and on,
// padded to the width of n (sim.Numbered). The node's id keeps them apart from another node's
// simulated iPhones, which a call names by UDID, and the same node and count give the same
// UDIDs at every start, so a UDID saved in a script (or a --passcodes entry) still names the
// iPhone after a restart.
func StartNodeSims(node string, n int, addr string, log *slog.Logger) (*Sims, error) {
	if node == "" {
		return StartSims(n, addr, log)
	}
	udids := make([]string, n)
	for i := range udids {
		udids[i] = sim.Numbered(simUDIDPrefix+"-"+node, i+1, n)
	}
	return startSims(udids, addr, log)
}

// startSims starts a simulated iPhone for each of udids behind a usbmuxd at addr.
func startSims(udids []string, addr string, log *slog.Logger) (*Sims, error) {
	host, err := iossim.Start(addr, log)
	if err != nil {
		return nil, fmt.Errorf("simulated usbmuxd: %w", err)
	}
	s := &Sims{Host: host}
	for i, udid := range udids {
		phone := sim.New(udid, sim.WithSize(375*SimScale, 667*SimScale))
		system, err := builtIn(phone)
		if err != nil {
			_ = host.Close()
			return nil, err
		}
		dev, err := iossim.NewDevice(iossim.Config{UDID: udid, Name: fmt.Sprintf("Corral iPhone %02d", i+1), DeveloperMode: true,
			System: system, Uninstalled: func(id string) { _ = phone.StopApp(context.Background(), id) }})
		if err != nil {
			_ = host.Close()
			return nil, err
		}
		sd := &SimDevice{Device: dev, Phone: phone}
		sd.restartWDA()
		s.devices = append(s.devices, sd)
		host.Attach(dev)
	}
	return s, nil
}

// builtIn are the apps the simulated phone has screens for, as the iPhone's system apps: the
// device's installation_proxy keeps them, with what is installed later, and its
// WebDriverAgent opens what installation_proxy lists (wdasim.WithCatalog): one account of the
// installed apps, as on a real iPhone.
func builtIn(phone *sim.Phone) ([]iossim.App, error) {
	pkgs, err := phone.ListPackages(context.Background())
	if err != nil {
		return nil, err
	}
	apps := make([]iossim.App, len(pkgs))
	for i, p := range pkgs {
		name := p[strings.LastIndex(p, ".")+1:]
		apps[i] = iossim.App{BundleID: p, Name: strings.ToUpper(name[:1]) + name[1:]}
	}
	return apps, nil
}

// restartWDA serves a fresh WebDriverAgent (no sessions) over the same phone. The old one's
// connections are closed first, as a real WDA's die with it: a client's keep-alive
// connections would otherwise go on reaching the old server.
func (d *SimDevice) restartWDA() {
	w := wdasim.New(d.Phone, SimScale, wdasim.WithCatalog(d.Device))
	d.Unhandle(DefaultWDAPort)
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
