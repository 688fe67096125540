package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/corral-farm/corral/arm/twin"
)

// runSimArm runs the digital twin of one arm rig on its own: its GRBL controller on a TCP
// port and a pty, its camera as an MJPEG stream, the calibration readback and a clipboard
// helper app, for a node whose rigs file names them (docs/arm.md).
func runSimArm(ctx context.Context, args []string) error { return simArm(ctx, args, os.Stdout) }

// simArm is runSimArm printing the rigs file's entry to out.
func simArm(ctx context.Context, args []string, out io.Writer) error {
	f := newFlags("sim arm")
	listen := f.String("listen", "127.0.0.1:2323", "address of the GRBL controller's TCP port (FluidNC's raw port)")
	httpAddr := f.String("http", "127.0.0.1:8090", "address of the camera's MJPEG stream (/camera), the calibration readback (/calibration) and the clipboard helper (/clipboard)")
	seed := f.Int64("seed", 1, "draws the rig's geometry (where the phone lies, the camera's view)")
	pty := f.Bool("pty", true, "also serve the controller on a pty, as a USB board appears")
	limits := f.Bool("limits", false, "homing and soft limits over the 200×200 mm bed: the controller powers up locked until $H or $X, and a move off the bed raises ALARM:2")
	faults := simArmFaultFlags(f)
	log, stop, err := f.start(args, func() error {
		return errors.Join(checkListen("--listen", *listen, "127.0.0.1:2323"), checkListen("--http", *httpAddr, "127.0.0.1:8090"), faults.check())
	})
	if err != nil || stop {
		return err
	}
	tw, err := twin.Start(twin.Options{Seed: *seed, Serial: fmt.Sprintf("arm-twin-%d", *seed), Log: log, Limits: *limits})
	if err != nil {
		return err
	}
	defer func() { _ = tw.Close() }()
	gln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", *listen, err)
	}
	addr := gln.Addr().String()
	go func() { _ = tw.GRBL.Serve(faults.listener(gln, tw, log)) }() // closed with the twin
	ptyPath := ""
	if *pty {
		if ptyPath, err = tw.GRBL.ServePTY(); err != nil {
			return fmt.Errorf("pty: %w (run with --pty=false where ptys are not available)", err)
		}
	}
	ln, err := net.Listen("tcp", *httpAddr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", *httpAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/camera", faults.camera(tw.Camera.Handler(), log))
	mux.Handle("/calibration", tw.ReadbackHandler())
	mux.Handle("/clipboard", tw.ClipboardHandler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	lo, hi := tw.RoughArea()
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(out, `# an arm rig's digital twin; put this in a rigs file for corral node --arm FILE
rigs:
  - serial: %s
    grbl: tcp://%s%s
    camera: %s/camera
    readback: %s/calibration
    screen_area: [%.0f, %.0f, %.0f, %.0f]   # mm under the gantry, as measured with a ruler
    clipboard: {url: %s/clipboard}          # the helper app for send_to_clipboard
`, tw.Phone.Info().Serial, addr, ptyComment(ptyPath), base, base, lo.X, lo.Y, hi.X, hi.Y, base)
	log.Info("arm twin ready", "grbl", addr, "pty", ptyPath, "http", base)
	<-ctx.Done()
	if err := ctx.Err(); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func ptyComment(path string) string {
	if path == "" {
		return ""
	}
	return "   # or: " + path
}
