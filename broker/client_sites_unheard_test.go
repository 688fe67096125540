package broker_test

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A process that watches no site (the CLI's front door) learns which edge sites are cut off
// from the hub's stores' sources, which an operator may read: none while every link is up, the
// cut site once its link is down, none again once it heals.
func TestSitesUnheardNamesACutSiteFromTheHubsSources(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"paris": {"n1"}, "lyon": {"n2"}}, PhonesPerNode: 1, Quiet: true})
	nc, err := broker.Connect(h.Connect(broker.UserName(broker.RoleOperator, ""), "operator-cli"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)

	down, err := broker.SitesUnheard(t.Context(), js)
	require.NoError(t, err)
	require.Empty(t, down, "every link is up")

	var last seen
	h.Sites["paris"].Link.Cut()
	farmtest.Eventually(t, waitLong, func() bool {
		down, err = broker.SitesUnheard(t.Context(), js)
		last.text = fmt.Sprintf("%v, %v", down, err)
		return err == nil && len(down) == 1 && down[0] == "paris"
	}, "paris named cut off (last: %s)", &last)

	h.Sites["paris"].Link.Heal()
	farmtest.Eventually(t, waitLong, func() bool {
		down, err = broker.SitesUnheard(t.Context(), js)
		last.text = fmt.Sprintf("%v, %v", down, err)
		return err == nil && len(down) == 0
	}, "no site named once paris's link healed (last: %s)", &last)
}

// seen is what a wait saw last, read when it gives up.
type seen struct{ text string }

func (s *seen) String() string { return s.text }
