package console_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
)

// In a browser, the grid and the device page ask less and less often while the gateway does not
// answer (they asked twice a second, and the grid once a second, for as long as it was down),
// say so and when they try again, grey the screens, and go back to their pace once it answers.
func TestPagesBackOffWhileTheGatewayIsDown(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	link := farmtest.StartLink(t, strings.TrimPrefix(f.Gateway().HTTP.URL, "http://"))
	base := "http://" + link.Addr()
	ctx := startBrowser(t)

	// longest is a gap between tries the back-off reaches within 20 s of the cut, one that a
	// pace that does not grow never has; pace bounds the gaps once the gateway answers again.
	for _, c := range []struct {
		page, polls   string
		longest, pace float64
	}{
		{"/devices/n1-p1", "/console/api/devices/", 3500, 1000}, // its facts: 1, 2, 4 s
		{"/devices/n1-p1", "/timeline", 7500, 5000},             // its timeline: 4, 8 s (4 s again and again before)
		{"/", "/console/api/devices?", 3500, 0},                 // the grid's long poll
	} {
		navigate(t, ctx, base+c.page)
		rendered(t, ctx)
		// The page's tries of polls, as times in ms since the page began.
		waitFor(t, ctx, 5*time.Second, "the page's fetch counted", `(() => { window.tries = []; const f = window.fetch;
		  window.fetch = (u, o) => { if (String(u).includes('`+c.polls+`')) window.tries.push(performance.now()); return f(u, o); }; return true; })()`,
			func(bool) bool { return true })
		link.Cut()
		cut := waitFor(t, ctx, 5*time.Second, "the time of the cut", `performance.now()`, func(float64) bool { return true })
		warn := waitFor(t, ctx, 15*time.Second, c.page+" to say the gateway does not answer", `document.getElementById('warn').textContent`, func(s string) bool {
			return strings.HasPrefix(s, "The gateway does not answer") && strings.Contains(s, "trying again in")
		})
		// Gaps of 1, 2, 4 s: a try 4 s after the last comes within 8 s of the cut. At the old pace
		// a gap never passed a second, with 16 tries (the device page) in those 8 s.
		gaps := waitFor(t, ctx, 20*time.Second, fmt.Sprintf("%s (%s) to wait %.1f s between tries", c.page, c.polls, c.longest/1000), `(() => { const at = window.tries.filter((x) => x > `+ms(cut)+`);
		  const gaps = at.slice(1).map((x, i) => Math.round(x - at[i])); return gaps; })()`, func(g []float64) bool {
			return len(g) > 0 && g[len(g)-1] >= c.longest
		})
		t.Logf("%s: gaps between tries after the cut %v ms", c.page, gaps)
		if len(gaps) > 4 {
			t.Errorf("%s tried %d times before it waited 3.5 s (gaps %v ms); want at most 5", c.page, len(gaps)+1, gaps)
		}
		if marked := waitFor(t, ctx, 5*time.Second, "the page marked", `'unreachable' in document.body.dataset`, func(bool) bool { return true }); !marked {
			t.Errorf("%s while the gateway does not answer (%q): not marked unreachable", c.page, warn)
		}
		link.Heal()
		waitFor(t, ctx, 15*time.Second, c.page+" to stop saying the gateway does not answer", `document.getElementById('warn').textContent`,
			func(s string) bool { return !strings.HasPrefix(s, "The gateway does not answer") })
		waitFor(t, ctx, 5*time.Second, "the page unmarked", `!('unreachable' in document.body.dataset)`, func(b bool) bool { return b })
		if c.pace > 0 { // the grid's long poll answers when the grid changes: no pace to see
			healed := waitFor(t, ctx, 5*time.Second, "the time of the healing", `performance.now()`, func(float64) bool { return true })
			waitFor(t, ctx, 25*time.Second, fmt.Sprintf("%s (%s) back at its pace (tries within %.1f s)", c.page, c.polls, c.pace/1000), `(() => { const at = window.tries.filter((x) => x > `+ms(healed)+`);
			  return at.length >= 3 && at[2] - at[1] < `+ms(c.pace)+`; })()`, func(b bool) bool { return b })
		}
	}
}

// ms is a time in ms for a script.
func ms(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
