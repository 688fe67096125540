package tools

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// installer is a fakeAbled that records what InstallApp was given, and the file's content at
// that moment.
func installer() (*fakeAbled, *[]string, *[]string) {
	d := newAbled()
	var paths, contents []string
	d.InstallAppFn = func(_ context.Context, p string) (device.InstalledApp, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return device.InstalledApp{}, err
		}
		paths, contents = append(paths, p), append(contents, string(b))
		return device.InstalledApp{}, nil
	}
	return d, &paths, &contents
}

// runInstall runs app_install, collecting its progress reports.
func runInstall(t *testing.T, ctx context.Context, d device.Driver, appURL string) (Output, [][2]float64, error) {
	t.Helper()
	return runInstallWith(t, ctx, OpsConfig{}, d, appURL)
}

// runInstallWith runs app_install as a node configured with c would.
func runInstallWith(t *testing.T, ctx context.Context, c OpsConfig, d device.Driver, appURL string) (Output, [][2]float64, error) {
	t.Helper()
	var mu sync.Mutex
	var reports [][2]float64
	args := `{"appUrl":` + strconv.Quote(appURL) + `}`
	out, err := DefaultOpsWith(c)["app_install"].Run(ctx, &Task{Driver: d, Args: []byte(args), Progress: func(done, total float64, _ string) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, [2]float64{done, total})
	}})
	return out, reports, err
}

func TestAppInstallLocalFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "com.example.app.apk")
	if err := os.WriteFile(path, []byte("PK-apk"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, paths, _ := installer()
	out, reports, err := runInstall(t, context.Background(), d, path)
	if err != nil {
		t.Fatal(err)
	}
	r := out.Data.(AppInstallResult)
	if len(*paths) != 1 || (*paths)[0] != path || r.AppURL != path || r.Bytes != 6 || r.Downloaded || r.Hint == "" {
		t.Fatalf("installed %v, result %+v", *paths, r)
	}
	if n := len(reports); n < 2 || reports[n-1] != [2]float64{100, 100} {
		t.Fatalf("progress %v: want it to end at 100 of 100", reports)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the node's own file was removed: %v", err)
	}
	// A missing file or a directory is bad input: nothing reached the device.
	for _, p := range []string{filepath.Join(t.TempDir(), "nope.apk"), t.TempDir()} {
		d, paths, _ := installer()
		_, _, err := runInstall(t, context.Background(), d, p)
		wantCode(t, err, broker.CodeBadInput)
		if len(*paths) != 0 {
			t.Fatalf("%s reached the driver", p)
		}
	}
}

func TestAppInstallDownloads(t *testing.T) {
	body := bytes.Repeat([]byte("apk!"), 300<<10) // 1.2 MiB: several progress reports
	var gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.RawQuery
		switch r.URL.Path {
		case "/apps/com.example.shop.apk", "/download":
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body)
		case "/broken":
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		case "/chunked/com.example.chunked.apk":
			w.(http.Flusher).Flush() // no Content-Length: chunked
			_, _ = w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	d, paths, contents := installer()
	out, reports, err := runInstall(t, context.Background(), d, srv.URL+"/apps/com.example.shop.apk?token=s3cret")
	if err != nil {
		t.Fatal(err)
	}
	r := out.Data.(AppInstallResult)
	if len(*paths) != 1 || filepath.Base((*paths)[0]) != "com.example.shop.apk" || (*contents)[0] != string(body) {
		t.Fatalf("installed %v", *paths)
	}
	if !r.Downloaded || r.Bytes != int64(len(body)) || gotQuery != "token=s3cret" || strings.Contains(r.Message, "s3cret") {
		t.Fatalf("result %+v (the query must reach the server, not the message)", r)
	}
	if _, err := os.Stat(filepath.Dir((*paths)[0])); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the download's temporary directory is left behind: %v", err)
	}
	if len(reports) < 4 {
		t.Fatalf("want progress during the download, got %v", reports)
	}
	for i := 1; i < len(reports); i++ {
		if reports[i][0] <= reports[i-1][0] || reports[i][1] != 100 {
			t.Fatalf("progress must rise, out of 100: %v", reports)
		}
	}

	// Unknown length, and a URL without a file name.
	for _, u := range []string{"/chunked/com.example.chunked.apk", "/download"} {
		d, paths, contents := installer()
		if _, _, err := runInstall(t, context.Background(), d, srv.URL+u); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"/chunked/com.example.chunked.apk": "com.example.chunked.apk", "/download": "download"}[u]
		if filepath.Base((*paths)[0]) != want || (*contents)[0] != string(body) {
			t.Fatalf("%s installed as %v", u, *paths)
		}
	}

	// A 404 is the caller's URL (bad_input, naming the status), and the device is not touched.
	d, paths, _ = installer()
	_, _, err = runInstall(t, context.Background(), d, srv.URL+"/missing.apk?key=sekrit")
	wantCode(t, err, broker.CodeBadInput)
	if !strings.Contains(err.Error(), "404") || strings.Contains(err.Error(), "sekrit") || len(*paths) != 0 {
		t.Fatalf("404: %v (installed %v)", err, *paths)
	}
	// A server failing (5xx) is no mistake of the caller's: a driver error, naming the status.
	_, _, err = runInstall(t, context.Background(), d, srv.URL+"/broken")
	wantCode(t, err, broker.CodeDriver)
	if !strings.Contains(err.Error(), "503") || len(*paths) != 0 {
		t.Fatalf("503: %v (installed %v)", err, *paths)
	}
}

// Apps over the size limit are refused: at once when the server says the length, as soon as
// the limit is passed when it does not.
func TestAppInstallSizeLimit(t *testing.T) {
	served := make(chan int, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sized.apk" {
			w.Header().Set("Content-Length", "5000")
		} else {
			w.(http.Flusher).Flush()
		}
		n, _ := w.Write(make([]byte, 5000))
		served <- n
	}))
	defer srv.Close()
	for _, u := range []string{"/sized.apk", "/chunked.apk"} {
		d, paths, _ := installer()
		_, _, err := runInstallWith(t, context.Background(), OpsConfig{MaxAppBytes: 1000}, d, srv.URL+u)
		wantCode(t, err, broker.CodeDriver)
		if !strings.Contains(err.Error(), "at most") || len(*paths) != 0 {
			t.Fatalf("%s: %v, installed %v", u, err, *paths)
		}
	}
	if MaxAppBytes != 1<<30 {
		t.Fatalf("the documented limit is 1 GiB, MaxAppBytes is %d", MaxAppBytes)
	}
}

// Cancelling the task stops a download that hangs.
func TestAppInstallDownloadHonoursCancel(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		_, _ = w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	d, paths, _ := installer()
	go func() {
		_, _, err := runInstall(t, ctx, d, srv.URL+"/slow.apk")
		done <- err
	}()
	time.AfterFunc(50*time.Millisecond, cancel)
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || len(*paths) != 0 {
			t.Fatalf("want context.Canceled and nothing installed, got %v, %v", err, *paths)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the download ignored cancellation")
	}
}

func TestAppInstallBadInput(t *testing.T) {
	for url, want := range map[string]string{
		"":                                  "appUrl is required",
		"   ":                               "appUrl is required",
		"relative/app.apk":                  "absolute path",
		"app.apk":                           "absolute path",
		"ftp://host/app.apk":                "not supported",
		"file:///tmp/app.apk":               "not supported",
		"http:///app.apk":                   "no host",
		"https://host/a\napk":               "control characters",
		"/tmp/" + strings.Repeat("a", 5000): "at most 4096",
	} {
		d, paths, _ := installer()
		_, _, err := runInstall(t, context.Background(), d, url)
		wantCode(t, err, broker.CodeBadInput)
		if !strings.Contains(err.Error(), want) || len(*paths) != 0 {
			t.Errorf("appUrl %.40q: %v; want it to mention %q", url, err, want)
		}
	}
	for _, ok := range []string{"/data/app.apk", `C:\apps\app.apk`, "c:/apps/app.apk", "HTTPS://example.com/a.apk", "http://10.0.0.1:8080/x"} {
		if err := (&AppInstallArgs{AppURL: ok}).Check(); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	_, err := runOp(t, "app_install", newFake(), `{"appUrl":"http://example.invalid/app.apk"}`)
	wantCode(t, err, broker.CodeUnsupported)
}

// With --app-sources, app_install takes apps only from the hosts and directories listed, and
// follows no redirect out of them; nothing else reaches the device.
func TestAppInstallSources(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/away.apk" {
			http.Redirect(w, r, "http://localhost:1/elsewhere.apk", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte("PK-apk"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	allowed, outside := filepath.Join(dir, "apps", "com.example.ok.apk"), filepath.Join(dir, "other.apk")
	for _, p := range []string{allowed, outside} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("PK-apk"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := OpsConfig{AppSources: []string{"127.0.0.1", ".example.com", filepath.Join(dir, "apps")}}
	for _, ok := range []string{srv.URL + "/com.example.ok.apk", allowed} {
		d, paths, _ := installer()
		if _, _, err := runInstallWith(t, context.Background(), c, d, ok); err != nil || len(*paths) != 1 {
			t.Errorf("%s: %v (installed %v)", ok, err, *paths)
		}
	}
	before := hits.Load()
	for _, bad := range []string{"http://localhost:1/x.apk", "https://example.com.evil.net/x.apk", outside,
		filepath.Join(dir, "apps", "..", "other.apk"), filepath.Join(dir, "apps2", "x.apk")} {
		d, paths, _ := installer()
		_, _, err := runInstallWith(t, context.Background(), c, d, bad)
		wantCode(t, err, broker.CodeBadInput)
		if !strings.Contains(err.Error(), "not among the app sources") || len(*paths) != 0 {
			t.Errorf("%s: %v (installed %v)", bad, err, *paths)
		}
	}
	if hits.Load() != before {
		t.Error("a refused appUrl was fetched")
	}
	d, paths, _ := installer()
	_, _, err := runInstallWith(t, context.Background(), c, d, srv.URL+"/away.apk")
	if err == nil || !strings.Contains(err.Error(), "not among this node's --app-sources") || len(*paths) != 0 {
		t.Errorf("redirect out of the sources: %v (installed %v)", err, *paths)
	}
}

// app_install names what it installed when the driver can tell, so that app_launch needs no
// guess from list_packages; when it cannot, the message and hint say so.
func TestAppInstallNamesTheApp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "build-17.apk")
	if err := os.WriteFile(path, []byte("PK-apk"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		app           device.InstalledApp
		message, hint string
	}{
		{device.InstalledApp{ID: "com.example.app", Version: "1.2.3"}, "installed com.example.app 1.2.3 from the node's " + path + ", 6 bytes", "app_launch com.example.app to open it."},
		{device.InstalledApp{ID: "com.example.app"}, "installed com.example.app from the node's " + path + ", 6 bytes", "app_launch com.example.app to open it."},
		{device.InstalledApp{}, "installed the node's " + path + ", 6 bytes; the device did not say which package it is", hintInstall},
	} {
		d := newAbled()
		d.InstallAppFn = func(context.Context, string) (device.InstalledApp, error) { return tc.app, nil }
		out, _, err := runInstall(t, t.Context(), d, path)
		if err != nil {
			t.Fatal(err)
		}
		r := out.Data.(AppInstallResult)
		if r.PackageName != tc.app.ID || r.Version != tc.app.Version || r.Message != tc.message || r.Hint != tc.hint {
			t.Errorf("driver named %+v: result %+v\nwant message %q, hint %q", tc.app, r, tc.message, tc.hint)
		}
	}
}
