package tools_test

import (
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// close_popups closes the simulated phone's popup with its "Not now", and leaves the page
// under it (and a clean screen) alone.
func TestClosePopupsOnTheSimulatedPhone(t *testing.T) {
	p := sim.New("sim-p")
	clean := run(t, p, "close_popups", `{}`).Data.(tools.ClosePopupsResult)
	if clean.PopupsClosed != 0 || len(p.InputLog()) != 0 {
		t.Fatalf("clean home screen: %+v, inputs %q", clean, p.InputLog())
	}
	run(t, p, "app_launch", `{"packageName":"com.corral.notes"}`)
	p.ShowPopup("Turn on sync?", "Cancel", "Not now", "Turn on")
	res := run(t, p, "close_popups", `{}`).Data.(tools.ClosePopupsResult)
	if res.PopupsClosed != 1 || res.Message != `closed 1 popup (tapped "Not now")` {
		t.Fatalf("%+v", res)
	}
	if _, open := p.Popup(); open || foregroundOf(t, p) != "com.corral.notes" {
		t.Fatalf("popup open %v, foreground %s", open, foregroundOf(t, p))
	}
	// The lock screen's OK key is no popup button.
	run(t, p, "press_button", `{"button":"POWER"}`)
	if res := run(t, p, "close_popups", `{}`).Data.(tools.ClosePopupsResult); res.PopupsClosed != 0 {
		t.Fatalf("lock screen: %+v", res)
	}
}
