package test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// Just after a site's link heals, the hub hears the site's nodes again before every view of
// which sites are cut off has caught up (the gateway's site watch, the stores' sources the
// command line reads). A list of leases answered then lists the site's leases: it must not
// also say they are not listed. Every answer from the heal on, from the hub's gateway and
// from `corral leases` over NATS, is checked until both have said the site is back.
func TestSiteLeasesJustAfterAHealAreNotSaidMissing(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"paris": {"n1"}, "lyon": {"n2"}}, PhonesPerNode: 1, Quiet: true})
	agent := h.Client("hub-agent")
	held := acquire(t, agent, args("serial", "n1-p1")) // paris's lease
	operator := h.Context(broker.UserName(broker.RoleOperator, ""))
	viaGateway := func() (listed bool, note string, err error) {
		res, err := farmtest.TryCall(t, agent, "list_leases", args())
		if err != nil {
			return false, "", err
		}
		var leases struct {
			Leases []struct {
				Serial string `json:"serial"`
			} `json:"leases"`
			Unanswered string `json:"unanswered"`
		}
		if err := farmtest.Decode(res, &leases); err != nil {
			return false, "", err
		}
		for _, l := range leases.Leases {
			listed = listed || l.Serial == "n1-p1"
		}
		return listed, leases.Unanswered, nil
	}
	bin := corral(t)
	viaNATS := func() (listed bool, note string, err error) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "leases", "--nats-context", operator)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return false, "", fmt.Errorf("corral leases: %w\n%s\n%s", err, out, stderr.String())
		}
		return strings.Contains(string(out), "n1-p1"), stderr.String(), nil
	}
	says := func(ask func() (bool, string, error), site string) func() bool {
		return func() bool { _, note, err := ask(); return err == nil && strings.Contains(note, site) }
	}
	// Whether an answer falls between the views depends on where the watch's probes are at the
	// heal (a probe sent during the cut waits out its timeout): a few cuts, each checked.
	for cut := range cuts {
		healed := cutAndHeal(t, h.Sites["paris"], says(viaGateway, "site paris"), says(viaNATS, "site paris"))
		var wg sync.WaitGroup
		wg.Add(2)
		go pollAfterHeal(t, &wg, fmt.Sprintf("cut %d: list_leases at the hub's gateway", cut+1), healed, viaGateway)
		go pollAfterHeal(t, &wg, fmt.Sprintf("cut %d: corral leases over NATS", cut+1), healed, viaNATS)
		wg.Wait()
		if t.Failed() {
			return
		}
		// Used, so that its idle TTL (5 min) outlasts the cuts on a loaded machine.
		farmtest.Eventually(t, 30*time.Second, func() bool {
			r, err := farmtest.TryCall(t, agent, "tap_xy", args("serial", "n1-p1", "lease", held.Lease.Handle, "x", 0.5, "y", 0.5))
			return err == nil && !r.IsError
		}, "a tap on paris's leased device after the heal")
	}
}

// cuts is how many times TestSiteLeasesJustAfterAHealAreNotSaidMissing cuts the site.
const cuts = 4

// cutAndHeal cuts link, waits until each of noted says so, heals it and says when.
func cutAndHeal(t *testing.T, link *farmtest.Site, noted ...func() bool) time.Time {
	t.Helper()
	link.Link.Cut()
	for _, n := range noted {
		farmtest.Eventually(t, 30*time.Second, n, "the list of leases at the hub says paris's are not listed")
	}
	link.Link.Heal()
	return time.Now()
}

// pollAfterHeal asks for the list of leases (ask: whether it lists n1-p1, paris's lease, and
// the words on whose are not listed) from the heal on, until it has listed paris's lease
// without a word of paris three times: the moment the views disagree, if they do, is in
// between. An answer that lists the lease and names paris as not listed fails the test.
func pollAfterHeal(t *testing.T, wg *sync.WaitGroup, way string, healed time.Time, ask func() (bool, string, error)) {
	defer wg.Done()
	clean, answers, both := 0, 0, 0
	for clean < 3 {
		if time.Since(healed) > time.Minute {
			t.Errorf("%s: paris's lease not listed without a word of paris a minute after the heal (%d answers)", way, answers)
			return
		}
		listed, note, err := ask()
		if err != nil {
			t.Errorf("%s: %v", way, err)
			return
		}
		answers++
		switch named := strings.Contains(note, "paris"); {
		case listed && named:
			if both++; both == 1 {
				t.Errorf("%s %s after the heal lists n1-p1 (paris's) and says paris's leases are not listed: %s",
					way, time.Since(healed).Round(time.Millisecond), note)
			}
		case listed:
			clean++
		}
	}
	t.Logf("%s: %d answers checked in the %s after the heal, %d of them said paris's listed leases not listed",
		way, answers, time.Since(healed).Round(time.Millisecond), both)
}
