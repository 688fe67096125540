package main

import (
	"context"
	"fmt"

	"github.com/corral-farm/corral/nodes/ios"
)

// runSimIOS runs simulated iPhones behind a simulated usbmuxd on TCP: `corral sim ios --count N
// --listen 127.0.0.1:PORT` prints the USBMUXD_SOCKET_ADDRESS that go-ios (and `corral node
// --usbmuxd`) reaches them with, and serves them until interrupted.
func runSimIOS(ctx context.Context, args []string) error {
	f := newFlags("sim ios")
	count := f.Int("count", 1, "simulated iPhones to start")
	listen := f.String("listen", "127.0.0.1:27015", "address of the simulated usbmuxd (port 0: a free port)")
	log, stop, err := f.start(args, func() error {
		if *count < 1 {
			return badValue(fmt.Errorf("--count %d: give how many iPhones to start, 1 or more", *count))
		}
		return checkListen("--listen", *listen, "127.0.0.1:27015")
	})
	if err != nil || stop {
		return err
	}
	sims, err := ios.StartSims(*count, *listen, log)
	if err != nil {
		return err
	}
	defer func() { _ = sims.Close() }()
	fmt.Println("export USBMUXD_SOCKET_ADDRESS=" + sims.Addr())
	for _, d := range sims.Devices() {
		fmt.Println("# " + d.UDID() + ": WebDriverAgent on its port 8100")
	}
	log.Info("simulated iPhones ready", "count", *count, "usbmuxd", sims.Addr(),
		"next", "corral node --usbmuxd "+sims.Addr()+" --wda-launch none")
	<-ctx.Done()
	return nil
}
