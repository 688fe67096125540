package broker_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
)

// A site a hub gateway has never reached (every site, as a hub starts before them) is "not
// connected yet", at INFO: no WARN of a link down, which it logged for every site at every
// start. Once reached and then cut, its link is down, at WARN.
func TestSiteNeverReachedIsNotConnectedYet(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"tokyo": {"n1"}}, PhonesPerNode: 1, Quiet: true})
	h.StopGateway()
	tokyo := h.Sites["tokyo"]
	tokyo.Link.Cut()

	var logs logtest.Buffer
	nc, err := broker.Connect(h.Connect(broker.UserName(broker.RoleGateway, ""), "site-watch"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	w, err := broker.WatchSites(t.Context(), nc, []string{"tokyo"}, broker.NewSiteMetrics(prometheus.NewRegistry()),
		slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}

	farmtest.Eventually(t, waitLong, func() bool { return logs.Line("site=tokyo") != "" },
		"the watch says tokyo is not reached; its log:\n%s", &logs)
	if l := logs.Line("site=tokyo"); !strings.Contains(l, "level=INFO") || !strings.Contains(l, "site not connected yet") {
		t.Errorf("a site never reached is logged as %s, want INFO site not connected yet", l)
	}
	if got := w.Down(); len(got) != 1 || got[0] != "tokyo" {
		t.Errorf("Down() = %v, want [tokyo]: not connected is still down", got)
	}

	tokyo.Link.Heal()
	farmtest.Eventually(t, waitLong, func() bool { return w.Up("tokyo") }, "tokyo up; the watch's log:\n%s", &logs)
	tokyo.Link.Cut()
	farmtest.Eventually(t, waitLong, func() bool { return logs.Line("site link down") != "" },
		"the watch sees tokyo's link down; its log:\n%s", &logs)
	if l := logs.Line("site link down"); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "site=tokyo") {
		t.Errorf("a cut of a site reached before is logged as %s, want WARN", l)
	}
}
