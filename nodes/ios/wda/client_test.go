package wda_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/ios/wda"
	"github.com/corral-farm/corral/nodes/sim"
)

func TestStatus(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	st, err := f.c.Status(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Ready || st.State != "success" || st.OSName != "iOS" || st.BundleID != "com.facebook.WebDriverAgentRunner" || st.IP == "" {
		t.Errorf("status = %+v", st)
	}
	if st.SessionID != "" || f.c.SessionID() != "" {
		t.Errorf("a new WebDriverAgent has session %q, the client %q; want none: /status needs none", st.SessionID, f.c.SessionID())
	}
}

func TestWindowSizeAndScale(t *testing.T) {
	for _, tc := range []struct {
		w, h, scale int
		pw, ph      float64
	}{
		{750, 1334, 2, 375, 667},  // iPhone SE
		{1170, 2532, 3, 390, 844}, // iPhone 12
	} {
		t.Run(fmt.Sprintf("%dx%d@%d", tc.w, tc.h, tc.scale), func(t *testing.T) {
			f := newFarm(t, tc.w, tc.h, tc.scale)
			ctx := ctxFor(t)
			w, h, err := f.c.WindowSize(ctx)
			if err != nil || w != tc.pw || h != tc.ph {
				t.Errorf("WindowSize = %g x %g, %v; want %g x %g", w, h, err, tc.pw, tc.ph)
			}
			sc, err := f.c.Scale(ctx)
			if err != nil || sc != float64(tc.scale) {
				t.Errorf("Scale = %g, %v; want %d", sc, err, tc.scale)
			}
		})
	}
}

// The screenshot is the phone's screen, pixel for pixel.
func TestScreenshotIsThePhonesPixels(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	if err := f.c.Launch(ctx, "com.corral.weather"); err != nil {
		t.Fatal(err)
	}
	b, err := f.c.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.phone.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bounds() != want.Bounds() {
		t.Fatalf("screenshot is %v, the phone %v", got.Bounds(), want.Bounds())
	}
	if d := differing(got, want); d != 0 {
		t.Errorf("%d pixels differ from the phone's screen", d)
	}
}

func differing(a, b image.Image) int {
	pa, pb := toRGBA(a).Pix, toRGBA(b).Pix
	n := 0
	for i := 0; i+3 < len(pa); i += 4 {
		if pa[i] != pb[i] || pa[i+1] != pb[i+1] || pa[i+2] != pb[i+2] {
			n++
		}
	}
	return n
}

// toRGBA copies img into an *image.RGBA (draw's fast paths, not At per pixel).
func toRGBA(img image.Image) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// A tap at the centre of an element of the source, in points, lands on that element, at both
// scales: the pixel the phone logs is the point times the scale.
func TestTapAtElementCentreLandsOnIt(t *testing.T) {
	for _, tc := range []struct{ w, h, scale int }{{750, 1334, 2}, {1170, 2532, 3}, {1080, 1920, 3}} {
		t.Run(fmt.Sprintf("%dx%d@%d", tc.w, tc.h, tc.scale), func(t *testing.T) {
			f := newFarm(t, tc.w, tc.h, tc.scale)
			ctx := ctxFor(t)
			tap := func(typ, k, v string) {
				t.Helper()
				src, err := f.c.Source(ctx)
				if err != nil {
					t.Fatal(err)
				}
				x, y := find(t, src, typ, k, v).centre(t)
				if err := f.c.Tap(ctx, x, y); err != nil {
					t.Fatal(err)
				}
				want := fmt.Sprintf("tap %d %d hold=0s", int(math.Floor(x*float64(tc.scale))), int(math.Floor(y*float64(tc.scale))))
				if got := f.lastInput(t); got != want {
					t.Errorf("tap at (%g, %g) points: the phone got %q, want %q", x, y, got, want)
				}
			}
			tap("XCUIElementTypeCell", "label", "Notes")
			if app := f.foreground(t); app != "com.corral.notes" {
				t.Fatalf("after tapping Notes, %s is in front", app)
			}
			if err := f.c.Keys(ctx, "milk"); err != nil {
				t.Fatal(err)
			}
			src, err := f.c.Source(ctx)
			if err != nil {
				t.Fatal(err)
			}
			find(t, src, "XCUIElementTypeTextField", "value", "milk")
			tap("XCUIElementTypeButton", "name", "clear")
			if n := f.phone.Note(); n != "" {
				t.Errorf("after tapping Clear the note holds %q", n)
			}
			tap("XCUIElementTypeButton", "label", "Navigate up")
			if app := f.foreground(t); app != "com.corral.launcher" {
				t.Errorf("after tapping back, %s is in front", app)
			}
		})
	}
}

func TestDoubleTapAndTouchAndHold(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	if err := f.c.DoubleTap(ctx, 100, 50.5); err != nil {
		t.Fatal(err)
	}
	if got := f.lastInput(t); got != "doubletap 200 101" {
		t.Errorf("double tap: the phone got %q", got)
	}
	if err := f.c.TouchAndHold(ctx, 10, 20, 800*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got := f.lastInput(t); got != "tap 20 40 hold=800ms" {
		t.Errorf("touch and hold: the phone got %q", got)
	}
}

// A swipe up on the shop's list scrolls it, with the duration and hold asked for.
func TestSwipeScrollsTheList(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	if err := f.c.Launch(ctx, "com.corral.shop"); err != nil {
		t.Fatal(err)
	}
	firstCell := func() string {
		src, err := f.c.Source(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range parseSource(t, src) {
			if e.Type == "XCUIElementTypeCell" {
				return e.Attrs["label"]
			}
		}
		t.Fatalf("no cell in the shop:\n%s", src)
		return ""
	}
	before := firstCell()
	if err := f.c.Swipe(ctx, 187.5, 500, 187.5, 200, 300*time.Millisecond, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if got, want := f.lastInput(t), "swipe 375 1000 375 400 dur=300ms hold=100ms"; got != want {
		t.Errorf("the phone got %q, want %q", got, want)
	}
	if after := firstCell(); after == before {
		t.Errorf("the list did not scroll: the first cell is still %q", after)
	}
	if err := f.c.Swipe(ctx, 0, 0, 1000, 0, 0, 0); !errors.Is(err, wda.ErrInvalidCoordinates) {
		t.Errorf("a swipe off the screen: %v, want invalid coordinates", err)
	}
	if err := f.c.Swipe(ctx, math.NaN(), 0, 1, 1, 0, 0); err == nil {
		t.Error("a swipe from NaN was sent")
	}
}

func TestKeys(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	if err := f.c.Keys(ctx, "hi"); !errors.Is(err, wda.ErrInvalidElementState) {
		t.Errorf("typing with no field focused: %v, want invalid element state", err)
	}
	if err := f.c.Launch(ctx, "com.corral.notes"); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Keys(ctx, "hello\bp! ✓\nbye"); err != nil {
		t.Fatal(err)
	}
	if got, want := f.phone.Note(), "hellp! ✓\nbye"; got != want {
		t.Errorf("note = %q, want %q", got, want)
	}
}

func TestPressButton(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	if err := f.c.Launch(ctx, "com.corral.notes"); err != nil {
		t.Fatal(err)
	}
	if err := f.c.PressButton(ctx, wda.ButtonHome); err != nil {
		t.Fatal(err)
	}
	if app := f.foreground(t); app != "com.corral.launcher" {
		t.Errorf("after home, %s is in front", app)
	}
	for button, key := range map[string]string{wda.ButtonVolumeUp: "key VOLUME_UP", wda.ButtonVolumeDown: "key VOLUME_DOWN"} {
		if err := f.c.PressButton(ctx, button); err != nil {
			t.Fatal(err)
		}
		if got := f.lastInput(t); got != key {
			t.Errorf("%s: the phone got %q, want %q", button, got, key)
		}
	}
	n := len(f.phone.InputLog())
	err := f.c.PressButton(ctx, "back")
	if !errors.Is(err, wda.ErrUnknownError) || !strings.Contains(err.Error(), "back") {
		t.Errorf("back: %v, want WebDriverAgent's unknown error naming the button", err)
	}
	if len(f.phone.InputLog()) != n {
		t.Errorf("iOS has no back button, yet the phone got %q", f.lastInput(t))
	}
}

func TestHome(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	if err := f.c.Launch(ctx, "com.corral.shop"); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Home(ctx); err != nil {
		t.Fatal(err)
	}
	if app := f.foreground(t); app != "com.corral.launcher" {
		t.Errorf("after Home, %s is in front", app)
	}
}

func TestLockBlackScreenUnlock(t *testing.T) {
	f := newFarm(t, 640, 1136, 2) // iPhone 5: small, so the pixel checks are quick under -race
	ctx := ctxFor(t)
	if err := f.c.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if locked, err := f.c.Locked(ctx); err != nil || !locked {
		t.Fatalf("Locked after Lock = %v, %v", locked, err)
	}
	if black := blackFraction(t, f); black != 1 {
		t.Errorf("locked, %.3f of the screenshot is black; want all", black)
	}
	n := len(f.phone.InputLog())
	if err := f.c.Tap(ctx, 100, 100); err != nil {
		t.Fatal(err)
	}
	if len(f.phone.InputLog()) != n {
		t.Errorf("a dark screen passed a touch on: %q", f.lastInput(t))
	}
	if err := f.c.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if locked, err := f.c.Locked(ctx); err != nil || locked {
		t.Fatalf("Locked after Unlock = %v, %v", locked, err)
	}
	if black := blackFraction(t, f); black > 0.5 {
		t.Errorf("unlocked, %.3f of the screenshot is black", black)
	}
	// The home button wakes it too.
	if err := f.c.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.c.PressButton(ctx, wda.ButtonHome); err != nil {
		t.Fatal(err)
	}
	if locked, err := f.c.Locked(ctx); err != nil || locked {
		t.Errorf("Locked after the home button = %v, %v", locked, err)
	}
}

func blackFraction(t *testing.T, f *farm) float64 {
	t.Helper()
	b, err := f.c.Screenshot(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	pix := toRGBA(img).Pix
	black := 0
	for i := 0; i+3 < len(pix); i += 4 {
		if pix[i]|pix[i+1]|pix[i+2] == 0 {
			black++
		}
	}
	return float64(black) / float64(len(pix)/4)
}

// A phone with its own passcode screen stays locked after Unlock, as an iPhone with a passcode
// does; typing the passcode unlocks it.
func TestPasscodeLockedPhone(t *testing.T) {
	f := newFarm(t, 750, 1334, 2, sim.Locked())
	ctx := ctxFor(t)
	if locked, err := f.c.Locked(ctx); err != nil || !locked {
		t.Fatalf("Locked = %v, %v; the phone starts on its lock screen", locked, err)
	}
	if err := f.c.Unlock(ctx); !errors.Is(err, wda.ErrUnknownError) {
		t.Fatalf("Unlock with a passcode set: %v, want WebDriverAgent's timeout error", err)
	}
	src, err := f.c.Source(ctx)
	if err != nil {
		t.Fatal(err)
	}
	find(t, src, "XCUIElementTypeSecureTextField", "name", "pinEntry")
	// The PIN pad takes the last digit as the whole code, as an iPhone's does: no return.
	if err := f.c.Keys(ctx, f.phone.Passcode()); err != nil {
		t.Fatal(err)
	}
	if locked, err := f.c.Locked(ctx); err != nil || locked {
		t.Errorf("Locked after typing the passcode = %v, %v", locked, err)
	}
}

func TestApps(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	const shop = "com.corral.shop"
	if err := f.c.Launch(ctx, shop); err != nil {
		t.Fatal(err)
	}
	info, err := f.c.ActiveApp(ctx)
	if err != nil || info.BundleID != shop || info.PID <= 0 {
		t.Errorf("ActiveApp = %+v, %v; want %s with a pid", info, err, shop)
	}
	for bundle, want := range map[string]int{shop: wda.AppRunningForeground, "com.corral.notes": wda.AppNotRunning, "com.example.none": wda.AppUnknown} {
		if st, err := f.c.AppState(ctx, bundle); err != nil || st != want {
			t.Errorf("AppState(%s) = %d, %v; want %d", bundle, st, err, want)
		}
	}
	if ran, err := f.c.Terminate(ctx, shop); err != nil || !ran {
		t.Errorf("Terminate(shop) = %v, %v; want true", ran, err)
	}
	if app := f.foreground(t); app != "com.corral.launcher" {
		t.Errorf("after Terminate, %s is in front", app)
	}
	if ran, err := f.c.Terminate(ctx, shop); err != nil || ran {
		t.Errorf("Terminate(shop) again = %v, %v; want false", ran, err)
	}
	err = f.c.Launch(ctx, "com.example.none")
	if !errors.Is(err, wda.ErrUnknownError) || !strings.Contains(err.Error(), "com.example.none") {
		t.Errorf("launching an app that is not installed: %v", err)
	}
	if err := f.c.Launch(ctx, ""); err == nil {
		t.Error("launching the empty bundle id was sent")
	}
}

// When WebDriverAgent restarts it forgets the session: the next call creates one and goes
// through, once.
func TestSessionRecreatedAfterRestart(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	if _, _, err := f.c.WindowSize(ctx); err != nil {
		t.Fatal(err)
	}
	first := f.c.SessionID()
	if first == "" {
		t.Fatal("no session after WindowSize")
	}
	restarted := f.restart()
	if err := f.c.Tap(ctx, 100, 100); err != nil {
		t.Fatal(err)
	}
	if second := f.c.SessionID(); second == "" || second == first {
		t.Errorf("session after the restart = %q, before %q; want a new one", second, first)
	}
	// The tap refused for its session, POST /session, the tap again.
	if n := restarted.Requests(); n != 3 {
		t.Errorf("the restarted WebDriverAgent got %d requests, want 3", n)
	}
	taps := 0
	for _, l := range f.phone.InputLog() {
		if strings.HasPrefix(l, "tap ") {
			taps++
		}
	}
	if taps != 1 {
		t.Errorf("the phone got %d taps, want 1", taps)
	}
}

// Calls racing for the first session create one.
func TestOneSessionForConcurrentCalls(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, _, err := f.c.WindowSize(ctx)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := f.srv.Load().Requests(); got != n+1 {
		t.Errorf("%d requests for %d calls; want %d: one POST /session", got, n, n+1)
	}
}

func TestClose(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	ctx := ctxFor(t)
	if err := f.c.Close(ctx); err != nil {
		t.Errorf("Close without a session: %v", err)
	}
	if _, _, err := f.c.WindowSize(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := f.c.Status(ctx)
	if err != nil || st.SessionID != "" || f.c.SessionID() != "" {
		t.Errorf("after Close: WebDriverAgent's session %q, the client's %q, %v; want none", st.SessionID, f.c.SessionID(), err)
	}
}

// A WebDriverAgent from before POST /wda/tap taps through /wda/tap/0; the client finds out once.
func TestTapOnAnOlderWebDriverAgent(t *testing.T) {
	f := newFarm(t, 750, 1334, 2)
	inner := f.srv.Load()
	var newRoute atomic.Int64
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/wda/tap") {
			newRoute.Add(1)
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"value":{"error":"unknown command","message":"Unhandled endpoint","traceback":""},"sessionId":null}`)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(old.Close)
	c := wda.New("http://wda", dialTo(old.Listener.Addr().String()))
	ctx := ctxFor(t)
	for _, x := range []float64{10, 20} {
		if err := c.Tap(ctx, x, 5); err != nil {
			t.Fatal(err)
		}
		if got, want := f.lastInput(t), fmt.Sprintf("tap %d 10 hold=0s", int(2*x)); got != want {
			t.Errorf("the phone got %q, want %q", got, want)
		}
	}
	if n := newRoute.Load(); n != 1 {
		t.Errorf("/wda/tap was tried %d times, want once", n)
	}
}
