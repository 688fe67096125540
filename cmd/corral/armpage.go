package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/corral-farm/corral/arm/rig"
)

// runArmPage serves the calibration page for rigs whose phone has no cable: the phone's
// browser shows it full screen and reports its touches, and the rigs file's readback reads
// them (docs/arm.md).
func runArmPage(ctx context.Context, args []string) error {
	f := newFlags("arm page")
	listen := f.String("listen", "0.0.0.0:8091", "address to serve the pages on: one the phones under the arms can reach")
	log, stop, err := f.start(args, func() error { return checkListen("--listen", *listen, "0.0.0.0:8091") })
	if err != nil || stop {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", *listen, err)
	}
	srv := &http.Server{Handler: rig.NewPages(log).Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	base := "http://" + ln.Addr().String()
	fmt.Printf("# calibration pages on %s: for rig RIG, open %s/RIG/ on its phone, full screen\n"+
		"# (iPhone: Share, Add to Home Screen, then open it from the home screen), and in the rigs file:\n"+
		"#     readback: %s/RIG/events\n", base, base, base)
	log.Info("calibration pages ready", "listen", base)
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
