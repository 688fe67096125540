package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/web"
)

// Flags of the browser devices that contradict each other are refused, not settled in
// silence: --web-max below the browsers always running was read as "just those", and a
// --web-home the browsers cannot open failed every HOME, long after the start.

// checkWebFlags checks --web-max against --web (and --sim-web), and --web-home against what a
// browser device opens and --web-allow, for those of the flags fs has.
func checkWebFlags(fs *flag.FlagSet) error {
	var errs []error
	n, _ := flagValue[int](fs, "web")
	sims, hasSims := flagValue[int](fs, "sim-web")
	if most, ok := flagValue[int](fs, "web-max"); ok && most > 0 && most < n+sims {
		running := fmt.Sprintf("--web %d", n)
		if hasSims && sims > 0 {
			running = fmt.Sprintf("--web %d and --sim-web %d", n, sims)
		}
		errs = append(errs, fmt.Errorf("--web-max %d is fewer than the %d browser devices %s always run: --web-max counts "+
			"them all, those always running and those started at first use; give --web-max %d or more, or 0 for just those",
			most, n+sims, running, n+sims))
	}
	if home, ok := flagValue[string](fs, "web-home"); ok {
		errs = append(errs, checkWebHome(fs, home))
	}
	return errors.Join(errs...)
}

// checkWebHome checks --web-home: a page a browser device opens (about:blank, an http or https
// URL with a host, a file:// path) that --web-allow lets it load. Errors show it without the
// password of a user:password@ URL.
func checkWebHome(fs *flag.FlagSet, home string) error {
	u, err := url.Parse(home)
	if err != nil || u.Scheme == "" {
		return fmt.Errorf("--web-home %q is not a URL: give the page HOME opens, e.g. https://example.org/ or about:blank", broker.RedactURLs(home))
	}
	switch u.Scheme {
	case "about":
		return nil
	case "file":
		if u.Path == "" {
			return fmt.Errorf("--web-home %q names no file: give file:///PATH, e.g. file:///srv/home.html", broker.RedactURLs(home))
		}
		return nil
	case "http", "https":
	default:
		return fmt.Errorf("--web-home %q: a browser device opens http, https, file or about pages, not %s: give e.g. https://example.org/ or about:blank",
			broker.RedactURLs(home), u.Scheme)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("--web-home %q has no host: give e.g. https://example.org/", broker.RedactURLs(home))
	}
	allow, ok := flagValue[string](fs, "web-allow")
	if !ok {
		return nil
	}
	policy, err := web.ParseHostPolicy(allow)
	if err != nil || policy.Allows(u.Hostname()) {
		return nil // a bad --web-allow is told on its own
	}
	return fmt.Errorf("--web-home %q is on host %s, which --web-allow %q does not allow: every HOME would be blocked; "+
		"add %s to --web-allow, or give a home page on a host it allows", broker.RedactURLs(home), u.Hostname(), allow, u.Hostname())
}
