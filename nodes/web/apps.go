package web

import (
	"context"
	"fmt"
	"net/url"

	"github.com/chromedp/chromedp"
)

var _ interface {
	LaunchApp(context.Context, string) error
	ForegroundApp(context.Context) (string, error)
} = (*Driver)(nil)

// LaunchApp opens a URL in the front tab (app_launch's packageName on a browser device):
// http and https only.
func (d *Driver) LaunchApp(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return d.wrap("open", fmt.Errorf("%w: %q", ErrBadURL, rawURL), "a browser device opens http:// and https:// URLs")
	}
	return d.do(ctx, "open "+u.Redacted(), chromedp.Navigate(u.String()))
}

// ForegroundApp is the front tab's URL.
func (d *Driver) ForegroundApp(ctx context.Context) (string, error) {
	pages, err := d.pages(ctx)
	if err != nil || len(pages) == 0 {
		return "", err
	}
	return pages[len(pages)-1].URL, nil
}
