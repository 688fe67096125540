package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/corral-farm/corral/nodes/device"
)

// MaxAppBytes bounds an app that app_install downloads.
const MaxAppBytes = 1 << 30

// downloader fetches the apps app_install is given URLs of.
type downloader struct {
	client  *http.Client
	limit   int64 // bytes
	sources appSources
}

// downloader returns the app downloader c configures. Redirects are followed only to sources
// the node allows, so an allowed host cannot send the node elsewhere.
func (c OpsConfig) downloader() downloader {
	d := downloader{client: c.HTTPClient, limit: c.MaxAppBytes, sources: appSources{list: c.AppSources, anywhere: !c.Shared && len(c.AppSources) == 0}}
	if d.client == nil {
		d.client = &http.Client{}
	}
	if !d.sources.anywhere {
		client := *d.client
		client.Transport = d.sources.transport(client.Transport)
		client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if !d.sources.allows(req.URL.String()) {
				return fmt.Errorf("redirected to %s, which is not among this node's --app-sources", redactURL(req.URL.String()))
			}
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return nil
		}
		d.client = &client
	}
	if d.limit <= 0 {
		d.limit = MaxAppBytes
	}
	return d
}

// isAbsPath accepts absolute paths of any node OS: the gateway that checks may run on another.
func isAbsPath(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && (p[0]|0x20) >= 'a' && (p[0]|0x20) <= 'z' && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

func isURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// download fetches rawURL into a new temporary directory (which the caller removes, even on
// error), keeping the URL's file name so the installer sees a sensible one. It refuses files
// over dl.limit and reports progress up to installDownloadShare percent.
func (dl downloader) download(ctx context.Context, rawURL, platform string, progress func(done float64, msg string)) (dir, file string, n int64, err error) {
	shown := redactURL(rawURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "", "", 0, BadInput("appUrl %s: %v", shown, err)
	}
	resp, err := dl.client.Do(req)
	if err != nil {
		return "", "", 0, downloadFailed(req.URL, shown, err) // app_url_unreachable.go
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 { // the caller's URL: missing, forbidden, ...
		return "", "", 0, BadInput("download %s: the server answered %s; check the appUrl, and that the node may fetch it", shown, resp.Status)
	}
	if resp.StatusCode != http.StatusOK {
		return "", "", 0, fmt.Errorf("download %s: the server answered %s; check that the URL is right and reachable from the node", shown, resp.Status)
	}
	limit := dl.limit
	if resp.ContentLength > limit {
		return "", "", 0, tooLarge{fmt.Errorf("download %s: the app is %d bytes; at most %d (%s) can be installed", shown, resp.ContentLength, limit, mib(limit))}
	}
	dir, err = os.MkdirTemp("", "corral-app-*")
	if err != nil {
		return "", "", 0, fmt.Errorf("download %s: make a temporary directory on the node: %w", shown, err)
	}
	file = filepath.Join(dir, appFileName(req.URL.Path, platform))
	f, err := os.Create(file)
	if err != nil {
		return dir, "", 0, fmt.Errorf("download %s: %w", shown, err)
	}
	w := &progressWriter{w: f, total: resp.ContentLength, progress: progress, shown: shown}
	n, err = io.CopyBuffer(w, io.LimitReader(resp.Body, limit+1), make([]byte, 256<<10))
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	switch {
	case err != nil:
		return dir, "", n, fmt.Errorf("download %s: stopped after %s: %w", shown, mib(n), scrubURLError(err))
	case n > limit:
		return dir, "", n, tooLarge{fmt.Errorf("download %s: the app is more than %d bytes (%s); at most that can be installed", shown, limit, mib(limit))}
	case resp.ContentLength >= 0 && n != resp.ContentLength:
		return dir, "", n, fmt.Errorf("download %s: got %d of %d bytes", shown, n, resp.ContentLength)
	}
	return dir, file, n, nil
}

// progressWriter reports a download's progress about every percent (or every 4 MiB when the
// size is unknown), always increasing and below installDownloadShare.
type progressWriter struct {
	w        io.Writer
	n, last  int64
	total    int64 // -1: unknown
	progress func(done float64, msg string)
	shown    string
}

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n += int64(n)
	step := int64(4 << 20)
	if p.total > 0 {
		step = max(p.total/100, 64<<10)
	}
	if p.n-p.last >= step {
		p.last = p.n
		var done float64
		var msg string
		if p.total > 0 {
			done = installDownloadShare * float64(p.n) / float64(p.total)
			msg = fmt.Sprintf("downloading %s: %s of %s", p.shown, mib(p.n), mib(p.total))
		} else {
			done = installDownloadShare * float64(p.n) / float64(p.n+64<<20) // approaches, never reaches
			msg = fmt.Sprintf("downloading %s: %s", p.shown, mib(p.n))
		}
		p.progress(min(done, installDownloadShare-0.01), msg)
	}
	return n, err
}

// appFileName is the file name to save a download under: the URL's last path element if it is
// a plain name, else app.apk (app.ipa on iOS).
func appFileName(urlPath, platform string) string {
	name := path.Base(urlPath)
	ok := name != "" && name != "." && name != "/" && !strings.HasPrefix(name, ".") && len(name) <= 128
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			ok = false
			break
		}
	}
	if ok {
		return name
	}
	if platform == device.PlatformIOS {
		return "app.ipa"
	}
	return "app.apk"
}

// redactURL shows a URL without its user info, query and fragment, which may hold secrets.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(the given URL)"
	}
	r := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	out := r.String()
	if u.RawQuery != "" || u.User != nil {
		out += " (query and credentials hidden)"
	}
	return clipN(out, 200)
}

// scrubURLError drops the URL that net/http puts in its errors (it may carry secrets), keeping
// the cause.
func scrubURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
