package web

import (
	"context"
	"fmt"
	"net/url"

	"github.com/corral-farm/corral/internal/redact"
)

// A browser's apps are its tabs: app_launch opens a URL, list_packages lists the open tabs'
// URLs, app_terminate closes the tabs showing one, and the app in front is the front tab's URL.
// A URL's password (http://user:password@host/, basic auth) is shown as redact.Mark wherever
// the device shows a URL: the browser itself keeps and uses it.

// LaunchApp opens a URL in the front tab: http and https only.
func (d *Driver) LaunchApp(ctx context.Context, rawURL string) error {
	u, err := d.pageURL("open", rawURL, "a browser device opens http:// and https:// URLs")
	if err != nil {
		return err
	}
	return d.navigate(ctx, "open "+shownURL(u), u.String())
}

// ListPackages lists the open tabs' URLs, oldest first, passwords redacted.
func (d *Driver) ListPackages(ctx context.Context) ([]string, error) {
	pages, err := d.settledPages(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(pages))
	for i, p := range pages {
		out[i] = redact.PageURL(p.URL)
	}
	return out, nil
}

// TerminateApp closes the tabs showing rawURL, as typed or as the device shows it (its
// password redacted).
func (d *Driver) TerminateApp(ctx context.Context, rawURL string) error {
	pages, err := d.settledPages(ctx)
	if err != nil {
		return err
	}
	closed := 0
	for i := len(pages) - 1; i >= 0; i-- { // from the newest, so that indexes stay valid
		if pages[i].URL == rawURL || redact.PageURL(pages[i].URL) == rawURL {
			if err := d.CloseTab(ctx, i); err != nil {
				return err
			}
			closed++
		}
	}
	if closed == 0 {
		return d.wrap("close", fmt.Errorf("%w: none shows %q", ErrNoTab, redact.PageURL(rawURL)), "list_packages lists the open tabs' URLs")
	}
	return nil
}

// ForegroundApp is the front tab's URL, its password redacted; "" with no tab open (the last
// one closed), which get_foreground_app answers as nothing in front.
func (d *Driver) ForegroundApp(ctx context.Context) (string, error) {
	pages, err := d.settledPages(ctx)
	if err != nil || len(pages) == 0 {
		return "", err
	}
	return redact.PageURL(pages[len(pages)-1].URL), nil
}

// IsHome says whether app, a URL as ForegroundApp shows it, is the home page (--web-home): the
// browser's home screen, which force_quit leaves alone as it leaves a phone's launcher.
func (d *Driver) IsHome(app string) bool {
	return sameURL(app, redact.PageURL(d.home))
}

// sameURL says whether a and b are one URL, as a browser shows it ("http://host" is shown
// "http://host/").
func sameURL(a, b string) bool {
	return a == b || normalURL(a) == normalURL(b)
}

func normalURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	if u.Path == "" && u.Opaque == "" && u.Host != "" {
		u.Path = "/"
	}
	return u.String()
}
