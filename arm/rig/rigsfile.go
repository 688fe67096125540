package rig

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"github.com/corral-farm/corral/arm/camera"
	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/internal/yamlfile"
	"github.com/corral-farm/corral/nodes/device"
)

// RigSpec is one rig of a rigs file (corral node --arm FILE; `corral sim arm` prints one).
type RigSpec struct {
	Serial string `yaml:"serial"`
	Model  string `yaml:"model"`
	// GRBL is the controller: tcp://host:port (FluidNC's raw port) or a serial device
	// (/dev/ttyUSB0) at Baud (default 115200).
	GRBL string `yaml:"grbl"`
	Baud int    `yaml:"baud"`
	// LinkTimeout is how long the controller may leave status requests or an idle line
	// unanswered before its link counts as lost (default 2 s; more for a controller over a
	// slow network).
	LinkTimeout time.Duration `yaml:"link_timeout"`
	// Camera is the overhead camera: an MJPEG stream's http(s) URL or a V4L2 device (/dev/video0).
	Camera string `yaml:"camera"`
	// Readback is the calibration page's event stream: where the phone tells its touches.
	Readback string `yaml:"readback"`
	// ScreenArea is where the screen roughly lies under the gantry, [x0, y0, x1, y1] mm.
	ScreenArea []float64 `yaml:"screen_area"`
	// Clipboard is the helper for send_to_clipboard, if the rig has one.
	Clipboard ClipboardSpec `yaml:"clipboard"`
}

// ClipboardSpec names a rig's clipboard helper: a helper app's URL that takes the text in a
// POST, or a command that takes it on its standard input.
type ClipboardSpec struct {
	URL     string   `yaml:"url"`
	Command []string `yaml:"command"`
}

func (c ClipboardSpec) check() error {
	switch {
	case c.URL != "" && len(c.Command) > 0:
		return errors.New("clipboard: url or command, not both")
	case c.URL != "" && !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://"):
		return fmt.Errorf("clipboard url %q: the helper app's http(s) URL", c.URL)
	case len(c.Command) > 0 && strings.TrimSpace(c.Command[0]) == "":
		return errors.New("clipboard command: the program first, e.g. [pbcopy]")
	}
	return nil
}

// helper is the Clipboard c names, nil for none.
func (c ClipboardSpec) helper() Clipboard {
	switch {
	case c.URL != "":
		return HTTPClipboard{URL: c.URL}
	case len(c.Command) > 0:
		return CommandClipboard{Args: c.Command}
	}
	return nil
}

// rigsFile is the document.
type rigsFile struct {
	Rigs []RigSpec `yaml:"rigs"`
}

// maxRigsFile bounds a rigs file: a rig is a few lines.
const maxRigsFile = 1 << 20

// ReadRigs reads and checks a rigs file; every problem is named with the rig it is in.
func ReadRigs(path string) ([]RigSpec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rigs file: %w", err)
	}
	return ParseRigs(data)
}

// ParseRigs parses a rigs file's contents.
func ParseRigs(data []byte) ([]RigSpec, error) {
	if len(data) > maxRigsFile {
		return nil, fmt.Errorf("rigs file: %d bytes, at most %d", len(data), maxRigsFile)
	}
	var f rigsFile
	switch err := yamlfile.Decode(data, &f); {
	case errors.Is(err, yamlfile.ErrEmpty):
		return nil, errors.New("rigs file: the file is empty: list the rigs under rigs: (docs/arm.md shows one)")
	case err != nil:
		return nil, fmt.Errorf("rigs file: %w; docs/arm.md shows one", err)
	}
	if len(f.Rigs) == 0 {
		return nil, errors.New("rigs file: no rigs: list them under rigs: (docs/arm.md)")
	}
	var errs []error
	seen := map[string]bool{}
	lines := keyLines(data)
	for i, r := range f.Rigs {
		var at map[string]int
		if i < len(lines) {
			at = lines[i]
		}
		if err := r.checkAt(at); err != nil {
			errs = append(errs, fmt.Errorf("rig %d (%s): %w", i+1, r.Serial, err))
		}
		if seen[r.Serial] {
			errs = append(errs, fmt.Errorf("rig %d: serial %q is taken by another rig", i+1, r.Serial))
		}
		seen[r.Serial] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("rigs file: %w", err)
	}
	return f.Rigs, nil
}

func (r RigSpec) check() error { return r.checkAt(nil) }

// checkAt checks the rig, lines the lines of its keys in its file (keyLines), nil if unknown.
func (r RigSpec) checkAt(lines map[string]int) error {
	var errs []error
	if r.Serial == "" {
		errs = append(errs, errors.New("serial: name the rig"))
	}
	if r.GRBL == "" {
		errs = append(errs, onLine(lines, "", errors.New("grbl: tcp://host:port or a serial device such as /dev/ttyUSB0")))
	} else if err := checkGRBL(r.GRBL); err != nil {
		errs = append(errs, onLine(lines, "grbl", err))
	}
	if !strings.HasPrefix(r.Camera, "http://") && !strings.HasPrefix(r.Camera, "https://") && !strings.HasPrefix(r.Camera, "/dev/") {
		errs = append(errs, fmt.Errorf("camera %q: an MJPEG stream's http(s) URL or a V4L2 device such as /dev/video0", r.Camera))
	}
	if !strings.HasPrefix(r.Readback, "http://") && !strings.HasPrefix(r.Readback, "https://") {
		errs = append(errs, fmt.Errorf("readback %q: the calibration page's http(s) URL", r.Readback))
	}
	if _, err := r.area(); err != nil {
		errs = append(errs, err)
	}
	if r.LinkTimeout < 0 || r.LinkTimeout > 10*time.Minute {
		errs = append(errs, fmt.Errorf("link_timeout %s: between 0 (2s) and 10m", r.LinkTimeout))
	}
	if err := r.Clipboard.check(); err != nil {
		errs = append(errs, err)
	}
	if r.Baud < 0 {
		errs = append(errs, fmt.Errorf("baud %d: leave it out for 115200", r.Baud))
	}
	return errors.Join(errs...)
}

func (r RigSpec) area() (Area, error) {
	a := r.ScreenArea
	if len(a) != 4 {
		return Area{}, fmt.Errorf("screen_area: [x0, y0, x1, y1] in mm under the gantry, %d numbers given", len(a))
	}
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Area{}, errors.New("screen_area: numbers only")
		}
	}
	area := Area{Min: geom.Point{X: min(a[0], a[2]), Y: min(a[1], a[3])}, Max: geom.Point{X: max(a[0], a[2]), Y: max(a[1], a[3])}}
	return area, area.check()
}

// connect opens the rig's controller and camera and makes its driver; log names the rig.
func (r RigSpec) connect(ctx context.Context, log *slog.Logger) (*Driver, *grbl.Client, error) {
	opts := []grbl.Option{grbl.WithLogger(log)}
	if r.LinkTimeout > 0 {
		opts = append(opts, grbl.WithLinkTimeout(r.LinkTimeout), grbl.WithReplyTimeout(r.LinkTimeout))
	}
	var c *grbl.Client
	var err error
	if addr, ok := strings.CutPrefix(r.GRBL, "tcp://"); ok {
		c, err = grbl.DialTCP(ctx, addr, opts...)
	} else {
		c, err = grbl.DialSerial(ctx, r.GRBL, orDefault(r.Baud, 115200), opts...)
	}
	if err != nil {
		return nil, nil, err
	}
	var cam Camera
	if strings.HasPrefix(r.Camera, "/dev/") {
		cam, err = camera.OpenV4L2(r.Camera, camera.V4L2Options{})
	} else {
		cam, err = camera.OpenMJPEG(ctx, r.Camera, camera.WithLogger(log))
	}
	if err != nil {
		_ = c.Close()
		return nil, nil, fmt.Errorf("camera %s: %w", r.Camera, err)
	}
	d, err := New(Config{Serial: r.Serial, Model: r.Model, Clipboard: r.Clipboard.helper()}, c, cam, nil, log)
	if err != nil {
		_ = c.Close()
		_ = cam.Close()
		return nil, nil, err
	}
	return d, c, nil
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// redial is how long a rig that cannot be reached, or whose link was lost, waits before it is
// tried again.
const redial = 5 * time.Second

// keepRig drives the rig r as a device of reg until ctx ends: it connects, calibrates (or
// takes the kept calibration) and serves; when the rig cannot be reached or its link is
// lost, it tries again after redial.
func keepRig(ctx context.Context, reg device.Registry, r RigSpec, log *slog.Logger) {
	log = rigLog(log, r.Serial)
	area, _ := r.area() // checked by ParseRigs
	// shown is why the rig shows offline as not ready (notready.go), "" when it does not.
	shown := ""
	for ctx.Err() == nil {
		d, c, err := r.connect(ctx, log)
		if err == nil {
			if err = calibrate(ctx, reg, d, HTTPReadback{URL: r.Readback}, area, log); err != nil {
				_ = d.Close()
				shown = "" // it showed calibrating meanwhile (calibrating.go): show why it is not ready again
			}
		}
		switch {
		case err != nil && ctx.Err() == nil:
			log.Error("arm rig not ready; trying again", "err", err, "in", redial)
			shown = showNotReady(reg, r, err, shown)
		case err == nil:
			log.Info("arm rig ready", "grbl", r.GRBL, "camera", r.Camera)
			shown = ""
			serve(ctx, reg, d, c)
		}
		select {
		case <-ctx.Done():
		case <-time.After(redial):
		}
	}
}
