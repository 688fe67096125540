package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// hangingSite serves /button, whose button's click hangs the page's script for ever, /touch,
// whose box counts the touches it gets and hangs the script for hangFor on each, and /link,
// whose link opens /busy (a script that never ends) in a new tab.
func hangingSite(t *testing.T, hangFor time.Duration) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/button", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>button</title><input id=f><button id=b onclick="for (;;) {}" style="width:200px;height:100px">hang</button>`)
	})
	mux.HandleFunc("/touch", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>touch</title><div id=box style="position:fixed;left:0;top:0;width:300px;height:300px">touches: 0</div>
<script>let n = 0; box.addEventListener("touchstart", () => { n++; box.textContent = "touches: " + n; const end = Date.now() + %d; while (Date.now() < end) {} });</script>`, hangFor.Milliseconds())
	})
	mux.HandleFunc("/link", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>link</title><a id=a href="/busy" target="_blank" style="display:block;width:200px;height:100px">open</a>`)
	})
	mux.HandleFunc("/busy", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>busy</title><p>busy</p><script>for (;;) {}</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// noAnswerWithin calls f with a deadline of three times cmdWait, and wants it to say that the
// page did not answer, within two tries of cmdWait (or inputWait) and some slack, not
// "context canceled".
func noAnswerWithin(t *testing.T, name string, f func(context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*cmdWait)
	defer cancel()
	start := time.Now()
	err := f(ctx)
	took := time.Since(start)
	t.Logf("%s: %v, after %s", name, err, took.Round(time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), "did not answer") || strings.Contains(err.Error(), "context canceled") ||
		took > 2*cmdWait+3*time.Second {
		t.Errorf("%s on a page whose script hangs: %v after %s; want it to say the page did not answer within %s",
			name, err, took, 2*cmdWait+3*time.Second)
	}
	return err
}

// Taps, keys, typing and swipes on a page whose script hangs waited out the call's whole
// deadline (the frame tree, the layout and the focus are asked of the page first) and said
// "tap: context canceled". They now say that the page did not answer within two tries of a
// few seconds; nothing was sent, so the error does not say an input may yet act.
func TestInputToAPageWhoseScriptHangs(t *testing.T) {
	d := startBrowser(t, "phone")
	if err := d.LaunchApp(t.Context(), hangingSite(t, 0)+"/button"); err != nil {
		t.Fatal(err)
	}
	// Its click hangs the page before the tap's touch is answered: the tap says it was sent.
	err := noAnswerWithin(t, "tap on a button whose click hangs", func(ctx context.Context) error { return d.TapSelector(ctx, "#b") })
	if err == nil || !strings.Contains(err.Error(), "the input was sent") {
		t.Fatalf("a tap whose click hangs the page: %v; want it to say the tap was sent and may yet act", err)
	}
	calls := map[string]func(context.Context) error{
		"tap":        func(ctx context.Context) error { return d.Tap(ctx, device.Point{X: 100, Y: 100}, 0) },
		"press key":  func(ctx context.Context) error { return d.PressKey(ctx, "ENTER") },
		"input text": func(ctx context.Context) error { return d.InputText(ctx, "x") },
		"swipe": func(ctx context.Context) error {
			return d.Swipe(ctx, device.Point{X: 100, Y: 900}, device.Point{X: 100, Y: 300}, 100*time.Millisecond, 0)
		},
	}
	for name, f := range calls {
		if err := noAnswerWithin(t, name, f); err != nil && strings.Contains(err.Error(), "was sent") {
			t.Errorf("%s: %v; nothing was sent to the page", name, err)
		}
	}
}

// A tap whose touch the page hangs on (its handler runs for 12 s) is not answered: it now
// says so after a few seconds, that the input was sent and may yet act, and it is never sent
// again (a second try would tap twice): once the page answers, it counted one touch.
func TestATapThePageHangsOnIsSentOnce(t *testing.T) {
	d := startBrowser(t, "phone")
	if err := d.LaunchApp(t.Context(), hangingSite(t, 12*time.Second)+"/touch"); err != nil {
		t.Fatal(err)
	}
	err := noAnswerWithin(t, "tap", func(ctx context.Context) error { return d.Tap(ctx, device.Point{X: 150, Y: 150}, 0) })
	if err == nil || !strings.Contains(err.Error(), "the input was sent") || !strings.Contains(err.Error(), "do not repeat it") {
		t.Errorf("a tap the page hangs on: %v; want it to say the tap was sent and may yet act", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for {
		src, err := d.Source(ctx)
		if err == nil {
			if !strings.Contains(src, `text="touches: 1"`) {
				t.Errorf("the page counted other than one touch: %s", src)
			}
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the page never answered again: %v", err)
		}
	}
}

// A link that opens a page whose script hangs in a new tab left the next call waiting out its
// whole deadline as it took the tab over (the profile's viewport and user agent are set in
// each tab): it now says the page did not answer, and the call after it too.
func TestANewTabWhoseScriptHangs(t *testing.T) {
	d := startBrowser(t, "phone")
	if err := d.LaunchApp(t.Context(), hangingSite(t, 0)+"/link"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := d.TapSelector(ctx, "#a"); err != nil {
		t.Fatal(err)
	}
	for { // the new tab is listed a moment after the tap
		pkgs, err := d.ListPackages(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(pkgs) == 2 {
			break
		}
	}
	for _, name := range []string{"first tap", "second tap"} {
		noAnswerWithin(t, name, func(ctx context.Context) error { return d.Tap(ctx, device.Point{X: 100, Y: 100}, 0) })
	}
}
