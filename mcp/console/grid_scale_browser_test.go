package console_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// The grid of a large farm in headless Chromium: the page carries the first cards only and
// its script renders the others, in the API's order; a change to one device writes that one
// card (a render used to look every card up with a querySelector on the wall and fill it
// again: quadratic in the devices, 16 s for a change to show on a wall of 10,000); a filter
// changed in the page removes and brings back cards in order.
func TestConsoleGridOfThousands(t *testing.T) {
	const nodes, perNode = 2, 1000
	f := farmtest.Start(t, farmtest.Options{Nodes: nodes, PhonesPerNode: perNode, Quiet: true})
	f.WaitDevices(nodes*perNode, "online")
	base := gridGateway(t, f)
	all := gridSerials(t, base, "")

	page := fetch(t, base+"/")
	if n := strings.Count(page, `<article class="card" data-serial="n`); n != 200 {
		t.Errorf("the page carries %d cards of %d, want the first 200", n, len(all))
	}
	if !strings.Contains(page, "These are the first 200 of 2000 devices") {
		t.Errorf("the page does not tell a reader without scripts that it shows the first 200 devices only")
	}

	ctx := startBrowser(t)
	navigate(t, ctx, base+"/")
	rendered(t, ctx)
	waitFor(t, ctx, 30*time.Second, "every card, in the API's order", cardSerialsJS, func(v []string) bool { return slices.Equal(v, all) })

	// Count what renders do from now on: fills of a card, and searches of the wall.
	const countJS = `(() => {
  const wall = document.getElementById('wall');
  window.counts = { fills: 0, searches: 0, renders: 0 };
  const fill = Corral.fill;
  Corral.fill = (...a) => { window.counts.fills++; return fill(...a); };
  for (const m of ['querySelector', 'querySelectorAll']) {
    const orig = wall[m];
    wall[m] = function (...a) { window.counts.searches++; return orig.apply(this, a); };
  }
  new MutationObserver(() => window.counts.renders++).observe(document.body, { attributeFilter: ['data-updated'] });
  return true;
})()`
	waitFor(t, ctx, 5*time.Second, "counters installed", countJS, func(bool) bool { return true })

	serial := fmt.Sprintf("n2-p%d", perNode/2) // a card in the middle of the wall
	stateJS := fmt.Sprintf(`document.querySelector('[data-serial=%q] [data-f=state]').textContent`, serial)
	agent := f.Client("grid-test")
	farmtest.MustCall(t, agent, "acquire_device", map[string]any{"serial": serial})
	taken := time.Now()
	// The wall shows a change within a second; the bound is for a loaded 2-core machine running
	// Chromium, 2,000 simulated phones and -race (10 s was missed once in a clean-clone run).
	waitFor(t, ctx, 30*time.Second, serial+" shows its lease", stateJS, func(s string) bool { return s == "leased" })
	t.Logf("the lease showed on a wall of %d cards %s after acquire_device answered", len(all), time.Since(taken).Round(time.Millisecond))
	var counts struct{ Fills, Searches, Renders int }
	waitFor(t, ctx, 5*time.Second, "the counts", `window.counts`, func(c map[string]int) bool {
		counts.Fills, counts.Searches, counts.Renders = c["fills"], c["searches"], c["renders"]
		return true
	})
	if counts.Renders == 0 || counts.Fills > 2*counts.Renders || counts.Searches > 0 {
		t.Errorf("%d renders of a change to one device filled %d cards and searched the wall %d times: want a card filled a change, no search",
			counts.Renders, counts.Fills, counts.Searches)
	}

	// A filter chosen in the page: the other node's cards go, and come back in order.
	n2 := gridSerials(t, base, "?node=n2")
	chooseNode := `(() => { const f = document.getElementById('filters'); f.elements.node.value = %q; f.dispatchEvent(new Event('change')); return true; })()`
	waitFor(t, ctx, 5*time.Second, "node n2 chosen", fmt.Sprintf(chooseNode, "n2"), func(bool) bool { return true })
	waitFor(t, ctx, 30*time.Second, "n2's cards only, in order", cardSerialsJS, func(v []string) bool { return slices.Equal(v, n2) })
	waitFor(t, ctx, 5*time.Second, "any node chosen", fmt.Sprintf(chooseNode, ""), func(bool) bool { return true })
	waitFor(t, ctx, 30*time.Second, "every card again, in order", cardSerialsJS, func(v []string) bool { return slices.Equal(v, all) })
	waitFor(t, ctx, 30*time.Second, serial+" still shows its lease", stateJS, func(s string) bool { return s == "leased" })
}

// gridGateway serves a gateway of f whose --tools are the grid's (list_available_devices,
// list_leases): its console shows no live screens, which this test is not about and which
// starved it. A look at a simulated phone's screen costs over a second of CPU under -race (60
// ms without), and the dozen cards on screen, watched at 2 frames a second, kept both cores of
// a loaded machine busy: acquire_device took minutes, and the test timed out in full runs.
func gridGateway(t *testing.T, f *farmtest.Farm) string {
	t.Helper()
	tools, err := mcp.SelectTools("list_available_devices,list_leases")
	if err != nil {
		t.Fatal(err)
	}
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Tools: tools})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	if page := fetch(t, hs.URL+"/"); !strings.Contains(page, `data-screens="false"`) {
		t.Fatal("the grid's gateway serves live screens: the test would watch a dozen simulated phones")
	}
	return hs.URL
}

// cardSerialsJS lists the wall's cards by serial, in order.
const cardSerialsJS = `[...document.getElementById('wall').children].map((e) => e.dataset.serial)`

// gridSerials are the serials of the grid's JSON for query, in order.
func gridSerials(t *testing.T, base, query string) []string {
	t.Helper()
	var g struct {
		Devices []struct {
			Serial string `json:"serial"`
		} `json:"devices"`
	}
	if err := json.Unmarshal([]byte(fetch(t, base+"/console/api/devices"+query)), &g); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range g.Devices {
		out = append(out, d.Serial)
	}
	return out
}

// fetch GETs url and returns its body; anything but 200 fails the test.
func fetch(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(body)
}
