package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// touchedSite serves /touch, whose box, once touched, tells /touched (touched receives then)
// and hangs the page's script for ever: the touch is never answered.
func touchedSite(t *testing.T) (page string, touched <-chan struct{}) {
	t.Helper()
	got := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/touch", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>touch</title><div id=box style="position:fixed;left:0;top:0;width:300px;height:300px">touch</div>
<script>box.addEventListener("touchstart", () => { const x = new XMLHttpRequest(); x.open("GET", "/touched", false); x.send(); for (;;) {} });</script>`)
	})
	mux.HandleFunc("/touched", func(http.ResponseWriter, *http.Request) {
		select {
		case got <- struct{}{}:
		default:
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/touch", got
}

// killChromium kills d's Chromium by its pid (SIGKILL: a crash, or the kernel out of memory):
// the browser process itself, not Debian's script that runs it.
func killChromium(t *testing.T, d *Driver) {
	t.Helper()
	pid := chromiumPid(t, d)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed Chromium, pid %d", pid)
}

// chromiumPid is the pid of d's Chromium: the browser process itself, not Debian's script
// that runs it, nor its children.
func chromiumPid(t *testing.T, d *Driver) int {
	t.Helper()
	d.mu.Lock()
	want := "--user-data-dir=" + d.dir
	d.mu.Unlock()
	procs := processes()
	ours := func(p process) bool {
		args := p.args()
		return slices.Contains(args, want) && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--type=") })
	}
	pid := 0
	for _, p := range procs {
		if ours(p) && (pid == 0 || ours(procs[p.ppid])) { // the script's child, when a script runs it
			pid = p.pid
		}
	}
	if pid == 0 {
		t.Fatal("no Chromium process names the device's profile directory")
	}
	return pid
}

// A tap whose browser was killed as the page held its touch said "the page did not answer
// ... the input was sent, and the page may act on it once it answers", though no page ever
// would: it now says that the browser died, that the touch had been sent (the page may have
// acted on it), and what comes next. The next call starts a new browser and does its work:
// it used to answer that the browser had been replaced and do nothing, telling the caller twice.
func TestAnInputWhoseBrowserDiesSaysSo(t *testing.T) {
	d := startBrowser(t, "phone")
	page, touched := touchedSite(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	calls := map[string]func(context.Context) error{
		"tap":             func(ctx context.Context) error { return d.Tap(ctx, device.Point{X: 300, Y: 300}, 0) },
		"tap by selector": func(ctx context.Context) error { return d.TapSelector(ctx, "#box") },
	}
	for _, name := range []string{"tap", "tap by selector"} {
		if err := d.LaunchApp(ctx, page); err != nil {
			t.Fatal(err)
		}
		answer := make(chan error, 1)
		go func() { answer <- calls[name](ctx) }()
		select {
		case <-touched:
		case err := <-answer:
			t.Fatalf("%s answered before the page got it: %v", name, err)
		}
		killChromium(t, d)
		err := <-answer
		t.Logf("%s: %v", name, err)
		if !errors.Is(err, ErrBrowserDied) || !strings.Contains(err.Error(), "had been sent") || !strings.Contains(err.Error(), "may have acted on it") ||
			!strings.Contains(err.Error(), "starts a new browser") || strings.Contains(err.Error(), "did not answer") {
			t.Errorf("%s whose browser was killed: %v; want it to say the browser died, that the input had been sent, and what comes next", name, err)
		}
		if front, err := d.ForegroundApp(ctx); err != nil || front != "about:blank" {
			t.Errorf("the call after the browser died under %s: %q (%v), want the new browser's about:blank", name, front, err)
		}
	}
}
