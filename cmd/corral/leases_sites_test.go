package main

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// During an edge site's cut, `corral leases` over NATS (the runbook's way: the operator's
// context, the CLI's own front door) lists the other sites' leases and says on standard error
// that the cut site's are not listed, as a hub gateway's list_leases does
// (docs/operations.md, During a cut). It printed the others' alone, as if they were all.
func TestLeasesOverNATSNameACutSite(t *testing.T) {
	noNATSSettings(t)
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"paris": {"n1"}, "lyon": {"n2"}}, PhonesPerNode: 1, Quiet: true})
	hub := h.Gateway().Client
	for _, serial := range []string{"n1-p1", "n2-p1"} {
		held, err := hub.Acquire(t.Context(), broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: broker.Holder{Principal: "alice"}})
		require.NoError(t, err)
		require.True(t, held.OK, "%s: %+v", serial, held)
	}
	operator := h.Context(broker.UserName(broker.RoleOperator, ""))

	// Both leases are listed once the hub's copies have them (they come through each site's link).
	var code int
	var out, errOut string
	farmtest.Eventually(t, 15*time.Second, func() bool {
		code, out, errOut = corralMain(t, "leases", "--nats-context", operator)
		return code == 0 && strings.Contains(out, "n1-p1") && strings.Contains(out, "n2-p1")
	}, "corral leases lists both sites' leases (last: %d %s %s)", stringer(func() string { return fmt.Sprint(code) }),
		stringer(func() string { return out }), stringer(func() string { return errOut }))
	assert.NotContains(t, errOut, "unreachable", "no site is cut off yet")

	h.Sites["paris"].Link.Cut()
	farmtest.Eventually(t, 15*time.Second, func() bool { return !h.Gateway().Sites.Up("paris") }, "the hub's gateway sees paris cut off")
	waitSitesUnheard(t, h, "paris")

	code, out, errOut = corralMain(t, "leases", "--nats-context", operator)
	require.Equal(t, 0, code, "%s\n%s", out, errOut)
	assert.Contains(t, out, "n2-p1", "lyon's lease is listed; stderr: %s", errOut)
	assert.NotContains(t, out, "n1-p1", "paris's lease cannot be read from the hub")
	// n1 may be named too, as a node that did not answer: the hub may not have marked its
	// devices offline yet.
	assert.Contains(t, errOut, "site paris is unreachable from the hub (its link is down): the leases held there are not listed")
	assert.NotContains(t, errOut, "lyon")
}

// waitSitesUnheard waits until the hub's stores have heard nothing from site for long enough
// to call its link down (broker.SitesUnheard), as an operator reads them.
func waitSitesUnheard(t *testing.T, h *farmtest.Hub, site string) {
	t.Helper()
	nc, err := broker.Connect(h.Connect(broker.UserName(broker.RoleOperator, ""), "wait-sites"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	var last string
	farmtest.Eventually(t, 15*time.Second, func() bool {
		down, err := broker.SitesUnheard(t.Context(), js)
		last = fmt.Sprintf("%v, %v", down, err)
		return err == nil && len(down) == 1 && down[0] == site
	}, "the hub's stores hear nothing from %s (last: %s)", site, stringer(func() string { return last }))
}

// stringer formats as what its function returns then.
type stringer func() string

func (s stringer) String() string { return s() }
