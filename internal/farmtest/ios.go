package farmtest

import (
	"context"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios"
)

// StartIOS starts count simulated iPhones behind a simulated usbmuxd and attaches them to node
// id through the real iOS driver: usbmux, lockdown with TLS, installation_proxy, AFC and
// WebDriverAgent over usbmux. Everything stops with the farm.
func (f *Farm) StartIOS(id string, count int) *ios.Sims {
	f.t.Helper()
	sims, err := ios.StartSims(count, "127.0.0.1:0", f.log)
	if err != nil {
		f.t.Fatal(err)
	}
	f.mu.Lock()
	n, ok := f.nodes[id]
	f.mu.Unlock()
	if !ok {
		_ = sims.Close()
		f.t.Fatalf("no node %s", id)
	}
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ios.Attach(ctx, n, ios.AttachOptions{Mux: ios.ParseMux(sims.Addr()), Launcher: sims.Launcher(), Tags: []string{device.SimulatedTag}, Log: f.log})
	}()
	f.t.Cleanup(func() { cancel(); <-done; _ = sims.Close() })
	return sims
}
