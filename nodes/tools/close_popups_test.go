package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// popupScreen is a fake device whose UI tree is a list of layers (XML fragments drawn over a
// page); a tap inside a layer's button bounds removes that layer.
type popupScreen struct {
	*fakeAbled
	mu      sync.Mutex
	page    string
	layers  []popupLayer
	tapped  []device.Point
	sticky  bool // taps close nothing
	sources int
}

type popupLayer struct {
	xml    string
	button [4]int // l, t, r, b of the button that closes it
}

func newPopupScreen(page string, layers ...popupLayer) *popupScreen {
	s := &popupScreen{fakeAbled: newAbled(), page: page, layers: layers}
	s.SourceFn = func(context.Context) (string, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sources++
		var b strings.Builder
		b.WriteString(`<hierarchy><node class="android.widget.FrameLayout" package="com.example" bounds="[0,0][1080,2400]">`)
		b.WriteString(s.page)
		for _, l := range s.layers {
			b.WriteString(l.xml)
		}
		b.WriteString(`</node></hierarchy>`)
		return b.String(), nil
	}
	s.TapFn = func(_ context.Context, p device.Point, _ time.Duration) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.tapped = append(s.tapped, p)
		for i := len(s.layers) - 1; i >= 0; i-- {
			b := s.layers[i].button
			if p.X >= b[0] && p.X < b[2] && p.Y >= b[1] && p.Y < b[3] && !s.sticky {
				s.layers = append(s.layers[:i], s.layers[i+1:]...)
				return nil
			}
		}
		return nil
	}
	return s
}

// alertDialog is an Android AlertDialog layer whose buttons are labelled labels, left to right,
// each 200 pixels wide from x=100 at y=1400..1500; any of them closes it.
func alertDialog(labels ...string) popupLayer {
	var b strings.Builder
	b.WriteString(`<node resource-id="android:id/parentPanel" class="android.widget.LinearLayout" bounds="[80,1000][1000,1600]">`)
	b.WriteString(`<node resource-id="android:id/alertTitle" text="Allow notifications?" bounds="[100,1020][980,1100]"/>`)
	for i, l := range labels {
		fmt.Fprintf(&b, `<node resource-id="android:id/button%d" class="android.widget.Button" text="%s" clickable="true" bounds="[%d,1400][%d,1500]"/>`,
			len(labels)-i, l, 100+200*i, 300+200*i)
	}
	b.WriteString(`</node>`)
	return popupLayer{xml: b.String(), button: [4]int{100, 1400, 100 + 200*len(labels), 1500}}
}

func closePopups(t *testing.T, d device.Driver) map[string]any {
	t.Helper()
	return mustRun(t, "close_popups", d, `{}`)
}

// In a dialog, the most dismissive button is tapped at its centre: "Not now" before "OK".
func TestClosePopupsTapsTheDialogsDismissButton(t *testing.T) {
	d := newPopupScreen(`<node text="OK" clickable="true" bounds="[0,200][200,300]"/>`, alertDialog("OK", "Not now"))
	m := closePopups(t, d)
	if m["popupsClosed"] != 1.0 || !strings.Contains(m["message"].(string), `closed 1 popup (tapped "Not now")`) {
		t.Fatalf("result %v", m)
	}
	if len(d.tapped) != 1 || d.tapped[0] != (device.Point{X: 400, Y: 1450}) {
		t.Fatalf("tapped %v, want the centre of Not now (400,1450)", d.tapped)
	}
}

// A page's own OK or Cancel is no popup: a clean screen closes nothing and taps nothing.
func TestClosePopupsLeavesACleanScreenAlone(t *testing.T) {
	d := newPopupScreen(`<node text="OK" clickable="true" bounds="[0,200][200,300]"/>` +
		`<node text="Cancel" clickable="true" bounds="[0,300][200,400]"/><node text="Close" bounds="[0,400][200,500]"/>`)
	m := closePopups(t, d)
	if m["popupsClosed"] != 0.0 || !strings.Contains(m["message"].(string), "no popup found") || len(d.tapped) != 0 {
		t.Fatalf("result %v, tapped %v", m, d.tapped)
	}
}

// Popups stacked on each other close one at a time, the source re-read after each tap; a
// label on a non-clickable text inside a clickable frame counts (the tap reaches the frame).
func TestClosePopupsClosesStackedPopupsOneAtATime(t *testing.T) {
	banner := popupLayer{xml: `<node resource-id="com.example:id/promo_popup" bounds="[0,0][1080,800]">` +
		`<node class="android.widget.FrameLayout" clickable="true" bounds="[900,20][1060,180]">` +
		`<node class="android.widget.ImageView" content-desc="关闭" bounds="[940,60][1020,140]"/></node></node>`,
		button: [4]int{900, 20, 1060, 180}}
	d := newPopupScreen("", alertDialog("Skip"), banner)
	m := closePopups(t, d)
	if m["popupsClosed"] != 2.0 || !strings.Contains(m["message"].(string), `(tapped "关闭", "Skip")`) {
		t.Fatalf("result %v (tapped %v)", m, d.tapped)
	}
}

// A button that closes nothing is tapped once, not five times; at most MaxPopupTaps taps.
func TestClosePopupsGivesUpOnAStuckButton(t *testing.T) {
	d := newPopupScreen("", alertDialog("Close"))
	d.sticky = true
	m := closePopups(t, d)
	if m["popupsClosed"] != 0.0 || len(d.tapped) != 1 || !strings.Contains(m["message"].(string), `tapping "Close" closed nothing`) {
		t.Fatalf("result %v, tapped %v", m, d.tapped)
	}
	var layers []popupLayer
	for range MaxPopupTaps + 2 {
		layers = append(layers, alertDialog("Dismiss"))
	}
	d = newPopupScreen("", layers...)
	// Every dialog's button has the same bounds: each tap closes the top one.
	m = closePopups(t, d)
	if m["popupsClosed"] != float64(MaxPopupTaps) || len(d.tapped) != MaxPopupTaps {
		t.Fatalf("result %v, %d taps", m, len(d.tapped))
	}
}

func TestClosePopupsNeedsTheUITree(t *testing.T) {
	_, err := runOp(t, "close_popups", newFake(), `{}`)
	wantCode(t, err, broker.CodeUnsupported)
}
