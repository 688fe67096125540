package sim

import (
	"context"
	"image"
	"image/draw"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

// An unchanged screen is drawn once: the console looked at every watched phone twice a second
// and drew 1080x2400 afresh each time. Screenshot hands out a copy (a caller that draws on it
// changes no one else's), a change is noticed, and what is handed out is always exactly what
// drawing the screen afresh gives.
func TestUnchangedScreenIsDrawnOnce(t *testing.T) {
	ctx := ctxT(t)
	p := New("s")
	first := shown(t, p)
	if shown(t, p) != first {
		t.Fatal("the unchanged screen was drawn again")
	}
	img, err := p.Screenshot(ctx)
	must(t, err)
	mine := img.(*image.RGBA)
	if mine == first || !samePixels(mine, first) {
		t.Fatal("Screenshot did not hand out a copy of the screen")
	}
	// A look's (the console's, which scales and encodes it) is the screen itself: no copy.
	if look, err := p.Screenshot(device.Look(ctx)); err != nil || look != image.Image(first) {
		t.Fatalf("a look at the unchanged screen: %v, not the kept screen", err)
	}
	draw.Draw(mine, mine.Rect, image.Black, image.Point{}, draw.Src)
	if shown(t, p) != first || !samePixels(first, fresh(p)) {
		t.Fatal("drawing on a screenshot changed the kept screen")
	}

	must(t, p.PressKey(ctx, "VOLUME_UP")) // a toast and the status bar's volume
	changed := shown(t, p)
	if changed == first || samePixels(changed, first) {
		t.Fatal("the screen changed, and the screenshot showed it as before")
	}
	if !samePixels(changed, fresh(p)) {
		t.Fatal("the kept screen is not what drawing it afresh gives")
	}

	// Pixels unused for keepDrawn are let go; the screen is drawn again, the same.
	p.drawn.forget()
	if again := shown(t, p); again == changed || !samePixels(again, changed) {
		t.Fatal("the screen let go was not drawn again, or not the same")
	}
}

// Every change to what the phone shows draws the screen again: after each step the screenshot
// is exactly what drawing afresh gives.
func TestEveryChangeIsDrawn(t *testing.T) {
	p := New("s")
	// Each step has its own ctx: the steps' drawing (about a second a screen under the race
	// detector on a loaded machine) outlasted one ctx shared by all of them.
	steps := []struct {
		name string
		do   func(ctx context.Context)
	}{
		{"open settings", func(context.Context) { tapOn(t, p, "com.corral.launcher:id/app_settings") }},
		{"shop", func(ctx context.Context) { must(t, p.LaunchApp(ctx, "com.corral.shop")) }},
		{"scroll", func(ctx context.Context) {
			must(t, p.Swipe(ctx, device.Point{X: 540, Y: 1800}, device.Point{X: 540, Y: 900}, 0, 0))
		}},
		{"back", func(ctx context.Context) { must(t, p.PressKey(ctx, "BACK")) }},
		{"notes", func(ctx context.Context) { must(t, p.LaunchApp(ctx, "com.corral.notes")) }},
		{"type", func(ctx context.Context) { must(t, p.InputText(ctx, "hello")) }},
		{"type more", func(ctx context.Context) { must(t, p.InputText(ctx, " world")) }},
		{"paste menu", func(ctx context.Context) {
			must(t, p.SetClipboard(ctx, "clip"))
			tapHold(t, p, "com.corral.notes:id/note")
		}},
		{"popup", func(context.Context) { p.ShowPopup("Update?", "Later", "Now") }},
		{"other popup", func(context.Context) { p.ShowPopup("Update?", "Later", "Never") }},
		{"dismiss", func(context.Context) { tapOn(t, p, "android:id/button1") }},
		{"clear app", func(ctx context.Context) { must(t, p.ClearApp(ctx, "com.corral.notes")) }},
		{"lock", func(ctx context.Context) { must(t, p.PressKey(ctx, "POWER")) }},
		{"digit", func(ctx context.Context) { must(t, p.InputText(ctx, "1")) }},
		{"wrong", func(ctx context.Context) { must(t, p.InputText(ctx, "999")) }},
		{"unlock", func(ctx context.Context) { must(t, p.InputText(ctx, DefaultPasscode)) }},
		{"volume", func(ctx context.Context) { must(t, p.PressKey(ctx, "VOLUME_DOWN")) }},
	}
	before := shown(t, p)
	for _, s := range steps {
		s.do(ctxT(t))
		now := shown(t, p)
		if !samePixels(now, fresh(p)) {
			t.Fatalf("after %s: the screenshot is not what the phone shows", s.name)
		}
		if samePixels(now, before) {
			t.Fatalf("after %s: the screen did not change (the step should change it)", s.name)
		}
		before = now
	}
}

// fresh draws what p shows now, as Screenshot did before screens were kept.
func fresh(p *Phone) *image.RGBA {
	p.mu.Lock()
	root := p.tree()
	p.mu.Unlock()
	img, _ := render(context.Background(), root, layout{p.size.Width, p.size.Height}) // never stops
	return img
}

// shown is p's screen, kept or drawn.
func shown(t testing.TB, p *Phone) *image.RGBA {
	t.Helper()
	img, err := p.screen(t.Context())
	must(t, err)
	return img
}

// tapHold long-presses the centre of the element with key.
func tapHold(t testing.TB, p *Phone, key string) {
	t.Helper()
	must(t, p.Tap(ctxT(t), centre(node(t, p, key).rect(t)), longPress))
}
