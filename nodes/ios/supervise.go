package ios

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// How the supervisor watches WebDriverAgent: a probe of /status every probeEvery while it
// answers, every retryEvery while it does not; launches back off from launchBackoff to
// maxLaunchBackoff.
const (
	probeEvery       = 2 * time.Second
	retryEvery       = 250 * time.Millisecond
	untrustedEvery   = 2 * time.Second
	probeTimeout     = 3 * time.Second
	launchBackoff    = 500 * time.Millisecond
	maxLaunchBackoff = 30 * time.Second
)

// supervisor watches a device's WebDriverAgent: it probes /status, restarts WDA through the
// launcher when it stops answering (with backoff), makes a new session and reads the screen
// again when it is back, and tells the node the device's health at every change and every
// probe (device.HealthReporter).
type supervisor struct {
	d      *Driver
	cancel context.CancelFunc
	done   chan struct{}
	poke   chan struct{}

	mu      sync.Mutex
	err     error // the device's health now; errStarting until the first probe
	checked chan struct{}
	report  func(error)

	launchMu   sync.Mutex
	nextLaunch time.Time
	backoff    time.Duration
	launches   int // WebDriverAgent (re)starts, for the wda_restarts gauge
}

var errStarting = errors.New("starting: waiting for WebDriverAgent's first answer")

func startSupervisor(d *Driver) *supervisor {
	ctx, cancel := context.WithCancel(context.Background())
	s := &supervisor{d: d, cancel: cancel, done: make(chan struct{}), poke: make(chan struct{}, 1),
		err: errStarting, checked: make(chan struct{}), backoff: launchBackoff}
	go s.run(ctx)
	return s
}

func (s *supervisor) stop() {
	s.cancel()
	<-s.done
}

func (s *supervisor) run(ctx context.Context) {
	defer close(s.done)
	first := true
	for {
		err := s.check(ctx)
		if ctx.Err() != nil {
			return
		}
		s.set(err, first)
		first = false
		wait := probeEvery
		switch {
		case errors.Is(err, ErrUntrusted):
			wait = untrustedEvery // a person has to tap Trust; usbmuxd's Paired message wakes it sooner
		case err != nil:
			wait = retryEvery
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-s.poke:
			t.Stop()
		case <-t.C:
		}
	}
}

// set records the health and tells the node.
func (s *supervisor) set(err error, first bool) {
	s.mu.Lock()
	was := s.err
	s.err = err
	report := s.report
	if first {
		close(s.checked)
	}
	s.mu.Unlock()
	if (err == nil) != (was == nil) {
		if err != nil {
			s.d.log.Warn("iOS device unhealthy", "err", err)
		} else {
			s.d.log.Info("iOS device ready")
		}
	}
	if report != nil {
		report(err)
	}
}

// check probes the device once: trust, then WebDriverAgent, then its screen.
func (s *supervisor) check(ctx context.Context) error {
	d := s.d
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if err := unlisted(d.DeviceID()); err != nil {
		return err // WebDriverAgent is not known dead: it is not restarted for this
	}
	if !d.trusted.Load() {
		ld, _, err := d.o.Mux.lockdown(pctx, d.DeviceID(), d.o.UDID)
		if errors.Is(err, ErrUnlisted) {
			return err
		}
		down := muxDown(err)
		if down == nil && err != nil {
			down = d.o.Mux.stuck(ctx) // a lockdown that timed out is no answer from the phone
		}
		if down != nil {
			return fmt.Errorf("%w; whether the iPhone trusts this computer is asked again when it does", down)
		}
		if err != nil {
			return fmt.Errorf("%w: unlock it and tap Trust on \"Trust This Computer?\"; it is taken as soon as it trusts (%v)", ErrUntrusted, err)
		}
		closeLockdown(ld)
		d.trusted.Store(true)
		d.log.Info("iOS device trusts this computer now")
	}
	// A gesture still going holds WebDriverAgent's one command at a time: /status waits for it.
	if err := d.behindGestures(ctx, func(ctx context.Context) error { _, err := d.wda.Status(ctx); return err }); err != nil {
		if errors.Is(err, ErrUnlisted) {
			return err
		}
		d.forgetScreen()
		down := muxDown(err)
		if down == nil {
			// A stuck usbmuxd takes the connection and never answers: WDA's /status times out
			// as if WDA had died, and relaunching it would not help.
			down = d.o.Mux.stuck(ctx)
		}
		if down != nil {
			// WebDriverAgent is out of reach, not known dead: a restart would go through the
			// same usbmuxd, and count as one in wda_restarts.
			return fmt.Errorf("%w; WebDriverAgent on port %d cannot be reached meanwhile (restarted if it still does not answer once usbmuxd does)", down, d.o.WDAPort)
		}
		launched := s.launch(ctx)
		return fmt.Errorf("WebDriverAgent does not answer on port %d (%v)%s", d.o.WDAPort, err, launched)
	}
	if err := d.behindGestures(ctx, func(ctx context.Context) error { _, err := d.screenInfo(ctx); return err }); err != nil {
		return fmt.Errorf("WebDriverAgent answers but gives no session or screen: %w", err)
	}
	s.resetBackoff()
	return nil
}

// muxDown is the usbmuxd error err holds, if usbmuxd not answering is what failed.
func muxDown(err error) *MuxDownError {
	var down *MuxDownError
	if errors.As(err, &down) {
		return down
	}
	return nil
}

// launchFailer is a Launcher that knows its last launch for a device failed after Launch
// returned (CommandLauncher: the command exited with an error; XCTestLauncher: go-ios's run
// ended with one), in words that say what to fix.
type launchFailer interface {
	LaunchFailed(udid string) error
}

// launch starts WebDriverAgent through the launcher unless it is backing off, and says what
// it did for the health reason.
func (s *supervisor) launch(ctx context.Context) string {
	l := s.d.o.Launcher
	if l == nil {
		return "; the farm starts WebDriverAgent itself (no --wda-launch): waiting for it"
	}
	s.launchMu.Lock()
	defer s.launchMu.Unlock()
	if time.Now().Before(s.nextLaunch) {
		// The same words until the next try: a reason that changed at every probe would
		// rewrite the device's registry entry four times a second.
		if f, ok := l.(launchFailer); ok {
			if err := f.LaunchFailed(s.d.o.UDID); err != nil {
				return fmt.Sprintf("; %v; it is run again with backoff", err)
			}
		}
		return "; restarted it, waiting for its answer"
	}
	err := l.Launch(ctx, s.d.o.UDID)
	s.launches++
	s.nextLaunch = time.Now().Add(s.backoff)
	s.backoff = min(2*s.backoff, maxLaunchBackoff)
	if err != nil {
		s.d.log.Warn("WebDriverAgent did not start", "err", err)
		return fmt.Sprintf("; starting it failed: %v", err)
	}
	s.d.log.Info("WebDriverAgent launched; waiting for its answer")
	return "; restarted it, waiting for its answer"
}

func (s *supervisor) resetBackoff() {
	s.launchMu.Lock()
	s.nextLaunch, s.backoff = time.Time{}, launchBackoff
	s.launchMu.Unlock()
}

// health waits for the first probe (or ctx) and returns the device's health.
func (s *supervisor) health(ctx context.Context) error {
	select {
	case <-s.checked:
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// check again now: a call found WebDriverAgent gone.
func (s *supervisor) wake() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// ReportHealth gives the driver where to report its health (device.HealthReporter).
func (d *Driver) ReportHealth(report func(error)) {
	d.sup.mu.Lock()
	d.sup.report = report
	d.sup.mu.Unlock()
	d.sup.wake()
}

// Health waits for the first probe of WebDriverAgent and says whether the device can take work.
func (d *Driver) Health(ctx context.Context) error { return d.sup.health(ctx) }

// Gauges are what /metrics shows of the device (corral_device_reading): whether its
// WebDriverAgent answers (wda_up) and how many times the driver started it (wda_restarts).
func (d *Driver) Gauges() map[string]float64 {
	up := 0.0
	d.sup.mu.Lock()
	if d.sup.err == nil {
		up = 1
	}
	d.sup.mu.Unlock()
	d.sup.launchMu.Lock()
	defer d.sup.launchMu.Unlock()
	return map[string]float64{"wda_up": up, "wda_restarts": float64(d.sup.launches)}
}
