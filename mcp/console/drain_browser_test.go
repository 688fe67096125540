package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// In a browser: a draining node's devices say since when (in the browser's zone) and by whom,
// on the grid's card and on the device's page, a leased one too; an offline device's last
// frame is greyed and says it is the last, captured when.
func TestDrainAndOfflineInABrowser(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Quiet: true})
	base := f.Gateway().HTTP.URL
	ctx := startBrowser(t)

	nc, err := nats.Connect(f.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	farmtest.MustCall(t, f.Client("agent"), "acquire_device", map[string]any{"serial": "n1-p1"})
	ans, err := broker.DrainNode(t.Context(), nc, "n1", broker.DrainRequest{Action: broker.DrainStart, By: "operator ann@bench"})
	if err != nil {
		t.Fatal(err)
	}
	zone, err := time.LoadLocation(browserTZ)
	if err != nil {
		t.Fatal(err)
	}
	at := ans.Since.In(zone)
	wantDrain := func(s string) bool {
		return (strings.HasPrefix(s, "Draining since "+at.Format("15:04:05")) || strings.HasPrefix(s, "Draining since "+at.Format("3:04:05 PM"))) &&
			strings.HasSuffix(s, " by operator ann@bench")
	}
	navigate(t, ctx, base+"/")
	rendered(t, ctx)
	card := waitFor(t, ctx, 15*time.Second, "n1-p1's card to say who drains since when",
		`document.querySelector('.card[data-serial="n1-p1"] [data-f=drain]').textContent`, wantDrain)
	other := waitFor(t, ctx, 5*time.Second, "n2-p1's card", `document.querySelector('.card[data-serial="n2-p1"] [data-f=drain]').textContent`,
		func(string) bool { return true })
	if other != "" {
		t.Errorf("n2-p1's card, whose node does not drain: %q", other)
	}
	navigate(t, ctx, base+"/devices/n1-p1")
	rendered(t, ctx)
	page := waitFor(t, ctx, 15*time.Second, "n1-p1's page to say who drains since when", `document.querySelector('main [data-f=drain]').textContent`, wantDrain)
	t.Logf("card %q, page %q", card, page)

	// n2's device goes offline with its node: its last frame stays, greyed, and says so.
	navigate(t, ctx, base+"/devices/n2-p1")
	rendered(t, ctx)
	waitFor(t, ctx, 30*time.Second, "a frame of n2-p1", `!document.querySelector('img[data-screen]').hidden`, func(b bool) bool { return b })
	const screenJS = `(() => { const img = document.querySelector('img[data-screen]');
	  return [document.querySelector('main').dataset.state, img.parentElement.dataset.stale || '', getComputedStyle(img).filter,
	    String(img.hidden), new Date(img.dataset.captured).toLocaleTimeString()]; })()`
	live := waitFor(t, ctx, 5*time.Second, "the live screen", screenJS, func([]string) bool { return true })
	if live[1] != "" || live[2] != "none" {
		t.Errorf("n2-p1's live screen: marked %q, filter %q; want it unmarked", live[1], live[2])
	}
	f.KillNode("n2")
	got := waitFor(t, ctx, 30*time.Second, "n2-p1's page to mark its last frame", screenJS, func(v []string) bool { return v[0] == broker.StateOffline && v[1] != "" })
	if got[1] != "offline \u00b7 last frame at "+got[4] || !strings.Contains(got[2], "grayscale") || got[3] != "false" {
		t.Errorf("n2-p1 offline: screen marked %q, filter %q, hidden %s; want its last frame greyed, 'offline \u00b7 last frame at %s'", got[1], got[2], got[3], got[4])
	}
}
