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
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/device"
)

// MaxAppBytes bounds an app that app_install downloads.
const MaxAppBytes = 1 << 30

// downloader fetches the apps app_install is given URLs of.
type downloader struct {
	client  *http.Client
	limit   int64    // bytes
	sources []string // OpsConfig.AppSources
}

// downloader returns the app downloader c configures. Redirects are followed only to sources
// the node allows, so an allowed host cannot send the node elsewhere.
func (c OpsConfig) downloader() downloader {
	d := downloader{client: c.HTTPClient, limit: c.MaxAppBytes, sources: c.AppSources}
	if d.client == nil {
		d.client = &http.Client{}
	}
	if len(d.sources) > 0 {
		client := *d.client
		client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if !d.allows(req.URL.String()) {
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

// allows says whether app (a URL or a path on the node) is among the node's app sources.
func (dl downloader) allows(app string) bool {
	if len(dl.sources) == 0 {
		return true
	}
	host := ""
	if isURL(app) {
		u, err := url.Parse(app)
		if err != nil {
			return false
		}
		host = strings.ToLower(u.Hostname())
	}
	for _, s := range dl.sources {
		switch {
		case host == "" && isAbsPath(s):
			if dir, file := filepath.Clean(s), filepath.Clean(app); file == dir || strings.HasPrefix(file, dir+string(filepath.Separator)) {
				return true
			}
		case host != "" && strings.HasPrefix(s, ".") && strings.HasSuffix(host, strings.ToLower(s)):
			return true
		case host != "" && host == strings.ToLower(s):
			return true
		}
	}
	return false
}

// AppInstallArgs are app_install's arguments (HttpRunner seed).
type AppInstallArgs struct {
	AppURL string `json:"appUrl" arg:"required,minLength=1,maxLength=4096" desc:"APK/IPA URL or path" help:"an http(s) URL of the APK/IPA, or its absolute path on the node that hosts the device"`
}

// Check validates the arguments: an http(s) URL, or an absolute path on the node.
func (a *AppInstallArgs) Check() error {
	s := a.AppURL
	if strings.ContainsFunc(s, unicode.IsControl) {
		return errors.New("appUrl must not contain control characters")
	}
	if scheme, _, ok := strings.Cut(s, "://"); ok {
		switch strings.ToLower(scheme) {
		case "http", "https":
		default:
			return fmt.Errorf("appUrl scheme %q is not supported: give an http(s) URL, or an absolute path on the node", clip(scheme))
		}
		u, err := url.Parse(s)
		if err != nil {
			return fmt.Errorf("appUrl is not a valid URL: %v", err)
		}
		if u.Host == "" {
			return errors.New("appUrl has no host: give a URL like https://example.com/app.apk")
		}
		return nil
	}
	if !isAbsPath(s) {
		return fmt.Errorf("appUrl %q is neither an http(s) URL nor an absolute path on the node; give e.g. https://example.com/app.apk or /data/apps/app.apk", clip(s))
	}
	return nil
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

// AppInstallResult is app_install's structured result (HttpRunner seed).
type AppInstallResult struct {
	Message    string `json:"message" jsonschema:"Success message confirming the app installation"`
	AppURL     string `json:"appUrl" jsonschema:"The app URL or path that was installed"`
	Bytes      int64  `json:"bytes" jsonschema:"Size of the app file in bytes"`
	Downloaded bool   `json:"downloaded" jsonschema:"True when the node downloaded appUrl first"`
	Hint       string `json:"hint"`
}

// Progress of app_install is reported in percent: the download is the first 90, the install
// the rest.
const (
	installDownloadShare = 90.0
	installTotal         = 100.0
)

// appInstall downloads with the node's downloader (OpsConfig's client, limit and app sources).
func appInstall() Tool {
	return NewTool[AppInstallArgs, AppInstallResult](Tool{Name: "app_install",
		Description: "Install an app from an http(s) URL (≤ 1 GiB) or a path on the node. Reports progress.",
		Hints:       Hints{Idempotent: true, OpenWorld: true}, Timeout: 10 * time.Minute, MaxTimeout: time.Hour,
		Profiles: []string{HttpRunner}, Progress: true,
		Short: Short{Kind: ShortText, Keys: []string{"appUrl"}, Usage: "the APK/IPA: an http(s) URL or a path on the device's node"},
		Run: func(ctx context.Context, t *Task) (Output, error) {
			dl := t.env().dl
			var a AppInstallArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.AppInstaller)
			if !ok {
				return Output{}, Unsupported(t.Driver, "install apps")
			}
			if !dl.allows(a.AppURL) {
				return Output{}, BadInput("appUrl %s is not among the app sources of the node that hosts %s (%s): ask its operator, or use one of those",
					redactURL(a.AppURL), t.Driver.Info().Serial, strings.Join(dl.sources, ", "))
			}
			progress := func(done float64, msg string) {
				if t.Progress != nil {
					t.Progress(done, installTotal, msg)
				}
			}
			local, size, downloaded := a.AppURL, int64(0), isURL(a.AppURL)
			if downloaded {
				dir, file, n, err := dl.download(ctx, a.AppURL, t.Driver.Info().Platform, progress)
				if dir != "" {
					defer os.RemoveAll(dir)
				}
				if err != nil {
					return Output{}, err
				}
				local, size = file, n
			} else {
				fi, err := os.Stat(local)
				switch {
				case errors.Is(err, os.ErrNotExist):
					return Output{}, BadInput("no file at %s on the node that hosts %s: give a path on that node, or an http(s) URL", clip(local), t.Driver.Info().Serial)
				case err != nil:
					return Output{}, fmt.Errorf("read %s on the node: %w", clip(local), err)
				case !fi.Mode().IsRegular():
					return Output{}, BadInput("%s on the node is not a regular file: give the path of an APK/IPA", clip(local))
				}
				size = fi.Size()
			}
			progress(installDownloadShare, fmt.Sprintf("installing %s (%s) on %s", path.Base(filepath.ToSlash(local)), mib(size), t.Driver.Info().Serial))
			if err := d.InstallApp(ctx, local); err != nil {
				return Output{}, err
			}
			progress(installTotal, "installed")
			what := "the node's " + a.AppURL
			if downloaded {
				what = redactURL(a.AppURL) + " (downloaded by the node)"
			}
			return Output{Data: AppInstallResult{Message: fmt.Sprintf("installed %s, %s", what, mib(size)),
				AppURL: a.AppURL, Bytes: size, Downloaded: downloaded, Hint: hintInstall}}, nil
		}})
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
		return "", "", 0, fmt.Errorf("download %s: %w", shown, scrubURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", 0, fmt.Errorf("download %s: the server answered %s; check that the URL is right and reachable from the node", shown, resp.Status)
	}
	limit := dl.limit
	if resp.ContentLength > limit {
		return "", "", 0, fmt.Errorf("download %s: the app is %d bytes; at most %d (%s) can be installed", shown, resp.ContentLength, limit, mib(limit))
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
		return dir, "", n, fmt.Errorf("download %s: the app is more than %d bytes (%s); at most that can be installed", shown, limit, mib(limit))
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

// clipN shortens s to at most most bytes (on a rune boundary), marking the cut with "…".
func clipN(s string, most int) string {
	if len(s) <= most {
		return s
	}
	n := most
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
