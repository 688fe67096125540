package web

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// Platform is the browser devices of a node: --web N of them (--sim-web N on corral up, the
// same thing: a headless browser is as real as a simulated one), each emulating --web-profile,
// and up to --web-max in all: those beyond the N start their browser at their first use and
// stop it after --web-idle unused (not while leased).
func Platform() device.Platform {
	return device.Platform{Name: device.PlatformWeb, Driver: reflect.TypeFor[*Driver](), Flags: func(fs *flag.FlagSet) device.Attacher {
		return &setup{
			n:       fs.Int("web", 0, "headless Chromium browsers to run as devices of platform web (docs/web.md)"),
			sims:    fs.Int("sim-web", 0, "the same as --web: browser devices (headless Chromium) to put in the farm"),
			profile: fs.String("web-profile", "phone", "what the browser devices emulate: phone (390x844 at 3x), android, tablet or desktop"),
			home:    fs.String("web-home", "about:blank", "the page a browser device opens for HOME"),
			allow:   fs.String("web-allow", "", "hosts the browser devices may load from, comma-separated (example.org, *.example.org); empty: any"),
			max:     fs.Int("web-max", 0, "browser devices in all, the --web N always running and the rest started at their first use (0: just the N)"),
			idle:    fs.Duration("web-idle", 5*time.Minute, "how long a browser device beyond --web N may stay unused before its browser stops (never while it is leased)"),
		}
	}}
}

type setup struct {
	n, sims, max         *int
	profile, home, allow *string
	idle                 *time.Duration
}

// floor is how many browsers always run; count is how many devices there are.
func (s *setup) floor() int { return *s.n + *s.sims }
func (s *setup) count() int { return max(s.floor(), *s.max) }

// simulated says whether browser i (from 0: web-01) is a simulated device, tagged sim as the
// other simulators' are: those of --sim-web (after --web's), and those --web-max adds on a node
// whose N came from --sim-web alone. Every browser the node makes is tagged web
// (device.NodeBrowserTag), so that a node restarted with fewer removes the others from the
// registry.
func (s *setup) simulated(i int) bool {
	if i < *s.n {
		return false
	}
	return i < s.floor() || *s.n == 0 && *s.sims > 0
}

// Real says whether browser devices are asked for.
func (s *setup) Real(context.Context) bool { return s.count() > 0 }

// startTimeout bounds a browser's start: a cold Chromium starts in well under a second.
const startTimeout = 30 * time.Second

// Attach starts the browsers, all at once, and gives them to reg; one that does not start
// stops them all.
func (s *setup) Attach(ctx context.Context, reg device.Registry, log *slog.Logger) (func(), error) {
	if s.count() == 0 {
		return func() {}, nil
	}
	if *s.idle <= 0 {
		return nil, fmt.Errorf("--web-idle %s: must be positive", *s.idle)
	}
	prof, err := ProfileNamed(*s.profile)
	if err != nil {
		return nil, fmt.Errorf("--web-profile: %w", err)
	}
	allow, err := ParseHostPolicy(*s.allow)
	if err != nil {
		return nil, fmt.Errorf("--web-allow: %w", err)
	}
	proxy := ""
	closeProxy := func() {}
	if !allow.Any() {
		p, err := StartProxy(allow, log)
		if err != nil {
			return nil, err
		}
		proxy, closeProxy = p.Addr(), func() { _ = p.Close() }
	}
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	drivers := make([]*Driver, s.count())
	errs := make([]error, len(drivers))
	var wg sync.WaitGroup
	for i := range drivers {
		wg.Go(func() {
			o := Options{Serial: webSerial(i+1, len(drivers)), Profile: prof, Home: *s.home, Allow: allow, Proxy: proxy, Log: log}
			if i >= s.floor() {
				o.Lazy, o.Idle = true, *s.idle
			}
			o.Tags = []string{device.NodeBrowserTag} // the node's own: a restart without it removes it
			if s.simulated(i) {
				o.Tags = append(o.Tags, device.SimulatedTag)
			}
			drivers[i], errs[i] = Start(sctx, o)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, d := range drivers {
			if d == nil {
				continue
			}
			if err := d.Close(); err != nil { // the start's failure is what Attach answers
				log.Warn("closing a browser device after another did not start", "device", d.serial, "err", err)
			}
		}
		closeProxy()
		return nil, err
	}
	for _, d := range drivers {
		reg.AddDriver(d)
	}
	log.Info("browser devices ready", "count", len(drivers), "running", s.floor(), "profile", prof.Name, "allow", allow.String())
	return func() {
		for _, d := range drivers {
			reg.RemoveDevice(d.serial, "the node stopped its browser devices")
		}
		closeProxy()
	}, nil
}

// webSerial is the serial of the i-th (from 1) of count browsers: web-01 and on, padded to the
// width of count as the simulated phones' (sim.Numbered), so that --web 120's sort in order
// (web-011 before web-100).
func webSerial(i, count int) string { return sim.Numbered("web", i, count) }
