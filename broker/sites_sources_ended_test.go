package broker

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A re-add of a site's source that fails because the watch ended (the gateway stops: its
// context cancelled) warns of nothing: it used to warn that the gateway's NATS user could not
// read the site and to run corral nats-auth again. A gateway whose NATS user really cannot (one
// made before the gateway role could read where a site's events start) is still told so.
func TestSourceReAddWarnsOnlyWhenNATSRefusesIt(t *testing.T) {
	gw, err := PermissionsFor(RoleGateway, "")
	require.NoError(t, err)
	api := siteAPI("*") + "."
	gw.PublishAllow = slices.DeleteFunc(slices.Clone(gw.PublishAllow), func(s string) bool {
		return s == api+"STREAM.INFO."+EventStream || s == api+"DIRECT.GET."+EventStream
	})
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: []embedded.User{
		{Name: "root", Password: "pw", Permissions: embedded.Permissions{PublishAllow: []string{">"}, SubscribeAllow: []string{">"}, AllowResponses: true}},
		{Name: "old-gateway", Password: "pw", Permissions: embedded.Permissions(gw)},
	}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	root, err := nats.Connect(ns.ClientURL(), nats.UserInfo("root", "pw"))
	require.NoError(t, err)
	t.Cleanup(root.Close)
	_, err = EnsureStores(t.Context(), root, StoreOptions{Sites: []string{"paris"}, EventsMaxAge: time.Hour})
	require.NoError(t, err)

	nc, err := nats.Connect(ns.ClientURL(), nats.UserInfo("old-gateway", "pw"), nats.CustomInboxPrefix(InboxPrefix(UserName(RoleGateway, ""))),
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {})) // the refusal is what the test makes
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	logs := &logtest.Buffer{}
	w := &SiteWatch{nc: nc, hub: js, log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	src := siteSource(EventStream, "paris", nil)

	stopped, stop := context.WithCancel(t.Context())
	stop()
	assert.False(t, w.addBack(stopped, "paris", EventStream, src), "added back with its context cancelled")
	assert.NotContains(t, logs.String(), "level=WARN", "the watch's end warned")
	assert.NotContains(t, logs.String(), "nats-auth")

	// The hub's stream has its source of paris already: only where it would start is asked.
	assert.True(t, w.addBack(t.Context(), "paris", EventStream, src))
	line := logs.Line("level=WARN")
	assert.Contains(t, line, "run corral nats-auth again", logs)
	assert.Equal(t, 1, strings.Count(logs.String(), "level=WARN"), logs)
}
