package sim

import (
	"errors"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

// A popup is an AlertDialog over the page: in the source, on the screenshot, and modal.
func TestPopupIsAModalDialog(t *testing.T) {
	p := New("SIM-P")
	ctx := ctxT(t)
	must(t, p.LaunchApp(ctx, "com.corral.shop"))
	before := shot(t, p)
	p.ShowPopup("Get 10% off your first order?")
	if title, ok := p.Popup(); !ok || title != "Get 10% off your first order?" {
		t.Fatalf("Popup() = %q, %v", title, ok)
	}
	for _, key := range []string{"android:id/parentPanel", "android:id/alertTitle", "Get 10% off your first order?"} {
		if !has(t, p, key) {
			t.Fatalf("no %s in the source; texts %v", key, texts(t, p))
		}
	}
	notNow, ok := node(t, p, "Not now"), node(t, p, "OK")
	if notNow.ResourceID != "android:id/button2" || ok.ResourceID != "android:id/button1" || !notNow.Clickable {
		t.Fatalf("buttons: %+v %+v", notNow, ok)
	}
	if samePixels(before, shot(t, p)) {
		t.Fatal("the popup is not drawn")
	}
	// The page under it takes no touch: a tap on a shop row and a swipe of its list do nothing.
	row := node(t, p, "com.corral.shop:id/list").rect(t)
	must(t, p.Tap(ctx, device.Point{X: 20, Y: row.Min.Y + 20}, 0))
	must(t, p.Swipe(ctx, device.Point{X: 20, Y: row.Max.Y - 20}, device.Point{X: 20, Y: row.Min.Y + 20}, 0, 0))
	if _, open := p.Popup(); !open || foreground(t, p) != "com.corral.shop" || !has(t, p, "Item 1") {
		t.Fatalf("a touch outside the popup went through; texts %v", texts(t, p))
	}
	if err := p.InputText(ctx, "x"); !errors.Is(err, ErrNoFocus) {
		t.Fatalf("typing with a popup open: %v", err)
	}
	tapOn(t, p, "Not now")
	if _, open := p.Popup(); open || has(t, p, "android:id/parentPanel") || !has(t, p, "Item 1") {
		t.Fatalf("Not now did not close the popup; texts %v", texts(t, p))
	}
}

// BACK and HOME close a popup; BACK does not also leave the page. A locked phone shows its
// lock screen, and the popup after unlocking.
func TestPopupClosesWithKeysAndWaitsBehindTheLock(t *testing.T) {
	p := New("SIM-P")
	ctx := ctxT(t)
	must(t, p.LaunchApp(ctx, "com.corral.clock"))
	p.ShowPopup("Rate us?", "Later", "", "Rate", "Never", "Too many")
	if n := len(all(t, p, func(n *xnode) bool { return n.Class == clsButton })); n != 3 {
		t.Fatalf("%d buttons, want 3 (empty and extra ones dropped)", n)
	}
	if node(t, p, "Later").ResourceID != "android:id/button3" {
		t.Fatal("the leftmost of three buttons is not button3")
	}
	must(t, p.PressKey(ctx, "BACK"))
	if _, open := p.Popup(); open || foreground(t, p) != "com.corral.clock" {
		t.Fatalf("BACK: popup open %v, foreground %s", open, foreground(t, p))
	}
	p.ShowPopup("Again")
	must(t, p.PressKey(ctx, "HOME"))
	if _, open := p.Popup(); open || foreground(t, p) != launcherPkg {
		t.Fatal("HOME did not close the popup and go home")
	}
	p.ShowPopup("Behind the lock")
	must(t, p.PressKey(ctx, "POWER"))
	if has(t, p, "android:id/parentPanel") || !has(t, p, "Enter passcode") {
		t.Fatalf("locked phone shows %v", texts(t, p))
	}
	must(t, p.PressKey(ctx, "WAKEUP")) // the screen is always on: nothing changes
	must(t, p.InputText(ctx, p.Passcode()))
	if !has(t, p, "Behind the lock") {
		t.Fatalf("after unlocking: %v", texts(t, p))
	}
}

func TestPasscodeIsTheOneThatUnlocks(t *testing.T) {
	if got := New("s").Passcode(); got != DefaultPasscode {
		t.Fatalf("Passcode() = %q", got)
	}
	p := New("s", Locked(), WithPasscode("97531"))
	must(t, p.InputText(ctxT(t), p.Passcode()))
	if foreground(t, p) != launcherPkg {
		t.Fatal("Passcode() did not unlock")
	}
}
