package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// When a node does not answer (a cut-off edge site's, in the seconds before the hub gives it
// up), list_leases lists the leases the others hold and names the node it lacks, instead of
// failing as a whole.
func TestListLeasesPartialAnswer(t *testing.T) {
	farm := newFakeFarm(t)
	farm.LeasesFn = func(context.Context) ([]broker.Lease, error) {
		return []broker.Lease{testLease(phone, broker.Holder{Principal: "alice"}).Public()},
			&broker.PartialError{Missing: map[string]error{"n9": errors.New("node n9 at site paris is unreachable from the hub (the site's link is down)")}}
	}
	cl := newTestClient(t, farm)
	out := wantOK(t, "list_leases", call(t, cl, "list_leases", nil))
	if leases := out["leases"].([]any); len(leases) != 1 || leases[0].(map[string]any)["serial"] != phone {
		t.Fatalf("leases %v, want the one the other nodes hold", leases)
	}
	unanswered, _ := out["unanswered"].(string)
	for _, want := range []string{"not every node answered", "node n9 at site paris"} {
		if !strings.Contains(unanswered, want) {
			t.Errorf("unanswered does not say %q: %q", want, unanswered)
		}
	}
}

// A hub whose edge site is cut off does not ask the site's nodes: list_leases says the site's
// leases are missing, not that there are none.
func TestListLeasesNamesCutOffSites(t *testing.T) {
	farm := newFakeFarm(t)
	farm.Down = []string{"lyon", "paris"}
	cl := newTestClient(t, farm)
	out := wantOK(t, "list_leases", call(t, cl, "list_leases", nil))
	unanswered, _ := out["unanswered"].(string)
	for _, want := range []string{"sites lyon, paris are unreachable", "not listed", "stay held at the sites"} {
		if !strings.Contains(unanswered, want) {
			t.Errorf("unanswered does not say %q: %q", want, unanswered)
		}
	}
	farm.Down = nil
	out = wantOK(t, "list_leases", call(t, cl, "list_leases", nil))
	if u, ok := out["unanswered"]; ok {
		t.Errorf("every site up and every node answered, yet unanswered is %q", u)
	}
}
