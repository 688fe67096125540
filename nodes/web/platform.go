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
)

// Platform is the browser devices of a node: --web N of them (--sim-web N on corral up, the
// same thing: a headless browser is as real as a simulated one), each emulating --web-profile.
func Platform() device.Platform {
	return device.Platform{Name: device.PlatformWeb, Driver: reflect.TypeFor[*Driver](), Flags: func(fs *flag.FlagSet) device.Attacher {
		return &setup{
			n:       fs.Int("web", 0, "headless Chromium browsers to run as devices of platform web (docs/web.md)"),
			sims:    fs.Int("sim-web", 0, "the same as --web: browser devices (headless Chromium) to put in the farm"),
			profile: fs.String("web-profile", "phone", "what the browser devices emulate: phone (390x844 at 3x), android, tablet or desktop"),
			home:    fs.String("web-home", "about:blank", "the page a browser device opens for HOME"),
			allow:   fs.String("web-allow", "", "hosts the browser devices may load from, comma-separated (example.org, *.example.org); empty: any"),
		}
	}}
}

type setup struct {
	n, sims              *int
	profile, home, allow *string
}

func (s *setup) count() int { return *s.n + *s.sims }

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
			drivers[i], errs[i] = Start(sctx, Options{Serial: fmt.Sprintf("web-%02d", i+1), Profile: prof, Home: *s.home,
				Allow: allow, Proxy: proxy, Log: log})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, d := range drivers {
			if d != nil {
				_ = d.Close()
			}
		}
		closeProxy()
		return nil, err
	}
	for _, d := range drivers {
		reg.AddDriver(d)
	}
	log.Info("browser devices ready", "count", len(drivers), "profile", prof.Name, "allow", allow.String())
	return func() {
		for _, d := range drivers {
			reg.RemoveDevice(d.serial, "the node stopped its browser devices")
		}
		closeProxy()
	}, nil
}
