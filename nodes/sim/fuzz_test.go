package sim

import (
	"context"
	"errors"
	"image"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// FuzzInput feeds random sequences of taps, swipes, keys, text, app switches and popups to a small
// phone and checks it never panics, every error is an *Error, and Source stays well-formed
// XML whose bounds lie on the screen.
func FuzzInput(f *testing.F) {
	f.Add([]byte{0, 60, 80, 0, 0, 3, 5, 0, 0, 0, 'h', 'i', '<', '&', 0xff, 2, 1, 0, 0, 0})
	f.Add([]byte{4, 9, 0, 0, 0, 1, 90, 200, 90, 20, 0, 30, 100, 0, 0, 7, 0, 0, 0, 0})
	f.Add([]byte{2, 4, 0, 0, 0, 3, 2, 0, 0, 0, '1', '2', 2, 5, 0, 0, 0, 7, 0, 0, 0, 0})
	f.Add([]byte{4, 1, 0, 0, 0, 3, 15, 0, 0, 0, 0, 0x80, '\n', '\t', 0xc3, 0x28, 'x', 2, 6, 0, 0, 0, 7, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		const w, h = 360, 800
		p := New("FUZZ", WithSize(w, h), WithPasscode("12"))
		ctx := context.Background()
		keys := append(validKeys[:], "BOGUS", "keycode_home")
		pkgs := append(packages(), "com.bogus", "")
		// Coordinates run a little past every edge, so out-of-screen errors are exercised too.
		pt := func(a, b byte) device.Point {
			return device.Point{X: int(a)*(w+40)/255 - 20, Y: int(b)*(h+40)/255 - 20}
		}
		for ops := 0; len(data) >= 5 && ops < 64; ops++ { // bounded, so each run stays fast
			op, a, b, c, d := data[0], data[1], data[2], data[3], data[4]
			data = data[5:]
			var err error
			switch op % 9 {
			case 0:
				err = p.Tap(ctx, pt(a, b), time.Duration(c)*time.Millisecond)
			case 1:
				err = p.Swipe(ctx, pt(a, b), pt(c, d), time.Duration(d)*time.Millisecond, 0)
			case 2:
				err = p.PressKey(ctx, keys[int(a)%len(keys)])
			case 3:
				n := min(int(a)%16, len(data))
				err = p.InputText(ctx, string(data[:n]))
				data = data[n:]
			case 4:
				err = p.LaunchApp(ctx, pkgs[int(a)%len(pkgs)])
			case 5:
				err = p.TerminateApp(ctx, pkgs[int(a)%len(pkgs)])
			case 6:
				err = p.DoubleTap(ctx, pt(a, b))
			case 7:
				_, err = p.Screenshot(ctx)
			case 8:
				p.ShowPopup(string(data[:min(int(a)%8, len(data))]), []string{"Close", "", "OK", "<&>"}[:int(b)%5]...)
			}
			var se *Error
			if err != nil && !errors.As(err, &se) {
				t.Fatalf("op %d returned %T %v", op%9, err, err)
			}
			checkSource(t, p, image.Rect(0, 0, w, h))
		}
	})
}

func checkSource(t *testing.T, p *Phone, screen image.Rectangle) {
	t.Helper()
	s, err := p.Source(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hier, err := parseSource(s)
	if err != nil || len(hier.Nodes) != 1 {
		t.Fatalf("Source is not a well-formed dump (%v):\n%s", err, s)
	}
	hier.Nodes[0].walk(func(n *xnode) {
		r, err := parseBounds(n.Bounds)
		if err != nil || r.Empty() || !r.In(screen) {
			t.Fatalf("node %s %q has bounds %q", n.ResourceID, n.Text, n.Bounds)
		}
	})
}
