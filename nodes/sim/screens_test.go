package sim

import (
	"errors"
	"image"
	"slices"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

func TestInfoAndSize(t *testing.T) {
	p := New("SIM-0001")
	info := p.Info()
	if info.Serial != "SIM-0001" || info.Platform != device.PlatformAndroid || info.Model != "Corral SimPhone" ||
		info.Brand != "corral" || info.Release != "14" || info.SDK != "34" || !slices.Equal(info.Tags, []string{"sim"}) {
		t.Fatalf("Info = %+v", info)
	}
	size, err := p.ScreenSize(ctxT(t))
	must(t, err)
	if size != (device.Size{Width: 1080, Height: 2400}) {
		t.Fatalf("size = %v", size)
	}
	size, err = New("s", WithSize(720, 1280)).ScreenSize(ctxT(t))
	must(t, err)
	if size != (device.Size{Width: 720, Height: 1280}) {
		t.Fatalf("size = %v", size)
	}
	if img := shot(t, New("s", WithSize(720, 1280))); img.Rect != image.Rect(0, 0, 720, 1280) {
		t.Fatalf("screenshot is %v", img.Rect)
	}
}

// The documented home grid: 4 columns of 270 pixels, rows of 330 from y=700.
func TestHomeLayoutIsStable(t *testing.T) {
	p := New("s")
	n := node(t, p, "com.corral.launcher:id/app_settings")
	if r := n.rect(t); r != image.Rect(0, 700, 270, 1030) || n.Text != "Settings" || n.Desc != "Settings" || !n.Clickable {
		t.Fatalf("Settings icon = %+v", n)
	}
	if r := node(t, p, "Maps").rect(t); r != image.Rect(810, 1360, 1080, 1690) {
		t.Fatalf("Maps icon at %v", r)
	}
	// The icon's square is drawn in the app's colour near its top-left corner.
	img := shot(t, p)
	if c := img.RGBAAt(70, 745); c != apps[appSettings].color {
		t.Fatalf("pixel inside the Settings icon is %v, want %v", c, apps[appSettings].color)
	}
}

func TestTapIconOpensApp(t *testing.T) {
	p := New("s")
	home := shot(t, p)
	for _, a := range apps {
		must(t, p.PressKey(ctxT(t), "HOME"))
		tapOn(t, p, "com.corral.launcher:id/app_"+strings.ToLower(a.name))
		if got := foreground(t, p); got != a.pkg {
			t.Fatalf("tapping %s opened %s", a.name, got)
		}
		if title := node(t, p, a.pkg+":id/title"); title.Text != a.name {
			t.Fatalf("%s title = %q", a.name, title.Text)
		}
		if samePixels(home, shot(t, p)) {
			t.Fatalf("%s looks like the home screen", a.name)
		}
	}
}

// Every clickable node in Source is what a tap at its centre hits, for every kind of screen.
func TestSourceBoundsMatchHitTest(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	screens := []func(){
		func() {},
		func() { must(t, p.LaunchApp(ctx, "com.corral.settings")) },
		func() { tapOn(t, p, "Wi-Fi") },
		func() { must(t, p.LaunchApp(ctx, "com.corral.shop")) },
		func() { must(t, p.Swipe(ctx, device.Point{X: 540, Y: 1500}, device.Point{X: 540, Y: 1130}, 0, 0)) },
		func() { tapOn(t, p, "Item 12") },
		func() { must(t, p.LaunchApp(ctx, "com.corral.notes")) },
		func() { must(t, p.LaunchApp(ctx, "com.corral.music")) },
		func() { must(t, p.PressKey(ctx, "POWER")) },
	}
	for i, step := range screens {
		step()
		clickable := all(t, p, func(n *xnode) bool { return n.Clickable })
		if len(clickable) == 0 {
			t.Fatalf("screen %d has nothing to tap", i)
		}
		p.mu.Lock()
		root := p.tree()
		p.mu.Unlock()
		for _, n := range clickable {
			r := n.rect(t)
			if !r.In(image.Rect(0, 0, 1080, 2400)) || r.Empty() {
				t.Fatalf("screen %d: %s has bounds %v", i, n.ResourceID, r)
			}
			c := centre(r)
			hit := root.find(image.Pt(c.X, c.Y), isClickable)
			if hit == nil || hit.bounds != r || hit.id != n.ResourceID || hit.text != n.Text {
				t.Fatalf("screen %d: a tap at %v, the centre of %s %q, hits %+v", i, c, n.ResourceID, n.Text, hit)
			}
		}
	}
}

func TestSettingsDetailAndSwitch(t *testing.T) {
	p := New("SIM-42")
	must(t, p.LaunchApp(ctxT(t), "com.corral.settings"))
	for _, row := range []string{"Wi-Fi", "Bluetooth", "Display", "Sound", "Battery", "Storage", "Security", "About phone"} {
		if !has(t, p, row) {
			t.Fatalf("Settings has no %s row", row)
		}
	}
	tapOn(t, p, "About phone")
	if !has(t, p, "SIM-42") || node(t, p, "com.corral.settings:id/title").Text != "About phone" {
		t.Fatalf("About phone page shows %v", texts(t, p))
	}
	must(t, p.PressKey(ctxT(t), "BACK"))
	tapOn(t, p, "Wi-Fi")
	sw := node(t, p, "android:id/switch_widget")
	if !sw.Checked || sw.Text != "ON" {
		t.Fatalf("Wi-Fi switch = %+v", sw)
	}
	tapOn(t, p, "android:id/switch_widget")
	if sw := node(t, p, "android:id/switch_widget"); sw.Checked || sw.Text != "OFF" {
		t.Fatalf("Wi-Fi switch after a tap = %+v", sw)
	}
	must(t, p.PressKey(ctxT(t), "BACK"))
	if !has(t, p, "Off") {
		t.Fatalf("Settings list does not show Wi-Fi off: %v", texts(t, p))
	}
}

func TestUnlock(t *testing.T) {
	p := New("s", Locked())
	if foreground(t, p) != systemPkg || !has(t, p, "Enter passcode") {
		t.Fatalf("a Locked phone shows %v", texts(t, p))
	}
	for _, d := range "99" {
		tapOn(t, p, "com.android.systemui:id/key"+string(d))
	}
	if got := node(t, p, "com.android.systemui:id/pinEntry").Desc; got != "2 digits entered" {
		t.Fatalf("pin entry says %q", got)
	}
	tapOn(t, p, "com.android.systemui:id/key9")
	tapOn(t, p, "com.android.systemui:id/key9")
	if !has(t, p, "Wrong passcode") || foreground(t, p) != systemPkg {
		t.Fatalf("after a wrong passcode the phone shows %v", texts(t, p))
	}
	for _, d := range DefaultPasscode {
		tapOn(t, p, "com.android.systemui:id/key"+string(d))
	}
	if foreground(t, p) != launcherPkg {
		t.Fatalf("the right passcode left the phone on %s", foreground(t, p))
	}

	// POWER locks over an app; typing the passcode returns to it.
	must(t, p.LaunchApp(ctxT(t), "com.corral.weather"))
	must(t, p.PressKey(ctxT(t), "POWER"))
	if foreground(t, p) != systemPkg {
		t.Fatal("POWER did not lock")
	}
	must(t, p.PressKey(ctxT(t), "HOME")) // ignored while locked
	if err := p.InputText(ctxT(t), "12a"); !errors.Is(err, ErrBadInput) {
		t.Fatalf("letters on the lock screen: %v", err)
	}
	must(t, p.InputText(ctxT(t), "1234"))
	if foreground(t, p) != "com.corral.weather" {
		t.Fatalf("unlocking went to %s", foreground(t, p))
	}
}

func TestCustomPasscode(t *testing.T) {
	p := New("s", Locked(), WithPasscode("00"))
	must(t, p.InputText(ctxT(t), "1"))
	must(t, p.PressKey(ctxT(t), "ENTER"))
	if !has(t, p, "Wrong passcode") {
		t.Fatal("1 unlocked a phone whose passcode is 00")
	}
	tapOn(t, p, "com.android.systemui:id/key0")
	tapOn(t, p, "Delete")
	tapOn(t, p, "com.android.systemui:id/key0")
	tapOn(t, p, "com.android.systemui:id/key0")
	if foreground(t, p) != launcherPkg {
		t.Fatal("00 did not unlock")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("WithPasscode(\"12ab\") did not panic")
		}
	}()
	WithPasscode("12ab")
}

func visibleItems(t *testing.T, p *Phone) []string {
	var out []string
	for _, n := range all(t, p, func(n *xnode) bool { return n.ResourceID == "com.corral.shop:id/name" }) {
		out = append(out, n.Text)
	}
	return out
}

func TestScrollShop(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	must(t, p.LaunchApp(ctx, "com.corral.shop"))
	before := visibleItems(t, p)
	if before[0] != "Item 1" || len(before) < 10 || contains(before, "Item 30") {
		t.Fatalf("shop opens showing %v", before)
	}
	list := node(t, p, "com.corral.shop:id/list")
	if !list.Scrollable {
		t.Fatal("the shop list is not scrollable")
	}
	img := shot(t, p)
	// Finger up by 800 pixels: the content moves up 5 rows of 160.
	must(t, p.Swipe(ctx, device.Point{X: 540, Y: 1800}, device.Point{X: 540, Y: 1000}, 300_000_000, 0))
	after := visibleItems(t, p)
	if after[0] != "Item 6" {
		t.Fatalf("after scrolling 800 px the first item is %q", after[0])
	}
	if samePixels(img, shot(t, p)) {
		t.Fatal("scrolling did not change the screenshot")
	}
	// Far past the end: clamped, Item 60 ends at the bottom of the screen.
	for range 10 {
		must(t, p.Swipe(ctx, device.Point{X: 540, Y: 2300}, device.Point{X: 540, Y: 300}, 0, 0))
	}
	last := all(t, p, func(n *xnode) bool { return n.Desc == "Item 60" })
	if len(last) != 1 || last[0].rect(t).Max.Y != 2400 {
		t.Fatalf("at the end Item 60 is %v", last)
	}
	// And back up past the top.
	for range 10 {
		must(t, p.Swipe(ctx, device.Point{X: 540, Y: 300}, device.Point{X: 540, Y: 2300}, 0, 0))
	}
	if got := visibleItems(t, p); got[0] != "Item 1" || node(t, p, "Item 1").rect(t).Min.Y != 280 {
		t.Fatalf("back at the top: %v", got)
	}
	// A swipe that starts outside the list (on the toolbar) scrolls nothing.
	must(t, p.Swipe(ctx, device.Point{X: 540, Y: 200}, device.Point{X: 540, Y: 150}, 0, 0))
	if got := visibleItems(t, p); got[0] != "Item 1" {
		t.Fatalf("a toolbar swipe scrolled to %v", got)
	}
	// A tapped item opens; BACK returns to the list where it was.
	tapOn(t, p, "Item 3")
	tapOn(t, p, "Add to cart")
	if !has(t, p, "Added Item 3 to cart") {
		t.Fatalf("no toast: %v", texts(t, p))
	}
	tapOn(t, p, "Navigate up")
	if foreground(t, p) != "com.corral.shop" || !has(t, p, "com.corral.shop:id/list") {
		t.Fatal("Navigate up did not return to the list")
	}
}

func TestNotes(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	if err := p.InputText(ctx, "nowhere"); !errors.Is(err, ErrNoFocus) || !strings.Contains(err.Error(), "com.corral.notes") {
		t.Fatalf("typing on home: %v", err)
	}
	tapOn(t, p, "Notes")
	field := node(t, p, "com.corral.notes:id/note")
	if !field.Focused || field.Text != "" {
		t.Fatalf("note field = %+v", field)
	}
	empty := shot(t, p)
	must(t, p.InputText(ctx, "hello <world> & \"friends\""))
	must(t, p.PressKey(ctx, "ENTER"))
	must(t, p.InputText(ctx, "line 2!"))
	must(t, p.PressKey(ctx, "DEL"))
	want := "hello <world> & \"friends\"\nline 2"
	if got := node(t, p, "com.corral.notes:id/note").Text; got != want {
		t.Fatalf("note = %q, want %q", got, want)
	}
	if got := node(t, p, "com.corral.notes:id/count").Text; got != "32 characters" {
		t.Fatalf("count = %q", got)
	}
	if samePixels(empty, shot(t, p)) {
		t.Fatal("typing did not change the screenshot")
	}
	// The note survives leaving the app; Clear empties it.
	must(t, p.PressKey(ctx, "HOME"))
	must(t, p.LaunchApp(ctx, "com.corral.notes"))
	if node(t, p, "com.corral.notes:id/note").Text != want {
		t.Fatal("the note was lost")
	}
	tapOn(t, p, "Clear")
	if node(t, p, "com.corral.notes:id/note").Text != "" {
		t.Fatal("Clear did not clear")
	}
	if err := p.InputText(ctx, strings.Repeat("x", maxNote+1)); !errors.Is(err, ErrBadInput) {
		t.Fatalf("overfilling the note: %v", err)
	}
	shot(t, p) // a full note still renders
}

func TestScreenshotsAreDeterministic(t *testing.T) {
	a, b := New("s"), New("s")
	for _, p := range []*Phone{a, b} {
		must(t, p.LaunchApp(ctxT(t), "com.corral.settings"))
	}
	if !samePixels(shot(t, a), shot(t, b)) {
		t.Fatal("two phones in the same state draw different pixels")
	}
}

func TestOtherSizesScale(t *testing.T) {
	for _, size := range []device.Size{{Width: 720, Height: 1280}, {Width: 2400, Height: 1080}, {Width: 320, Height: 480}} {
		p := New("s", WithSize(size.Width, size.Height))
		screen := image.Rect(0, 0, size.Width, size.Height)
		for _, a := range apps {
			must(t, p.PressKey(ctxT(t), "HOME"))
			if r := node(t, p, a.name).rect(t); !r.In(screen) || r.Dx() < size.Width/4-1 {
				t.Fatalf("%v: the %s icon is at %v", size, a.name, r)
			}
		}
		tapOn(t, p, "Shop")
		if foreground(t, p) != "com.corral.shop" {
			t.Fatalf("%v: the Shop icon does not work", size)
		}
		if r := node(t, p, "com.corral.shop:id/list").rect(t); r.Max != screen.Max {
			t.Fatalf("%v: list bounds %v", size, r)
		}
		must(t, p.PressKey(ctxT(t), "POWER"))
		if r := node(t, p, "com.android.systemui:id/key0").rect(t); !r.In(screen) {
			t.Fatalf("%v: key 0 is at %v", size, r)
		}
		shot(t, p)
	}
}
