package test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A call from the hub that finds no one at a site's node as its link closes (no responders)
// never reached the site: it is refused offline, in the words later calls get, not answered
// lost (node_lost) with a record to look for that will never come.
func TestHubCallThatNeverReachedACutSiteIsRefused(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"site-a": {"n1"}}, PhonesPerNode: 1, Quiet: true})
	hubAgent := h.Client("hub-agent")
	farmtest.MustCall(t, hubAgent, "tap_xy", args("serial", "n1-p1", "x", 0.5, "y", 0.5)) // its probe subscription made
	h.Sites["site-a"].Link.Cut()
	cut := time.Now()
	res, err := farmtest.TryCall(t, hubAgent, "tap_xy", args("serial", "n1-p1", "x", 0.5, "y", 0.5))
	if err != nil {
		t.Fatal(err)
	}
	text := farmtest.Text(res)
	t.Logf("%s after the cut: %s", time.Since(cut).Round(time.Millisecond), text)
	if !res.IsError || !strings.Contains(text, "refused (offline)") || !strings.Contains(text, "is at site site-a, unreachable from the hub") {
		t.Errorf("a tap sent as the site's link closed: %s; want refused (offline), the device at site site-a unreachable", text)
	}
}
