package main

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/farmtest"
)

// jsRequests counts the JetStream API requests whose replies go to a NATS user's inbox: a
// command's round trips to JetStream, apart from the farm's own, which the server's total
// also counts (a gateway's and nodes' requests while the command ran made it flaky).
type jsRequests struct {
	t   *testing.T
	nc  *nats.Conn
	sub *nats.Subscription
}

// observer is the NATS user jsRequests connects as: it may watch the JetStream API.
var observer = embedded.User{Name: "observer", Password: "pw",
	Permissions: embedded.Permissions{SubscribeAllow: []string{"$JS.API.>"}, PublishDeny: []string{">"}}}

func watchJetStreamRequests(t *testing.T, url string) *jsRequests {
	t.Helper()
	nc, err := nats.Connect(url, nats.UserInfo(observer.Name, observer.Password))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	sub, err := nc.SubscribeSync("$JS.API.>")
	require.NoError(t, err)
	require.NoError(t, sub.SetPendingLimits(-1, -1))
	require.NoError(t, nc.Flush())
	return &jsRequests{t: t, nc: nc, sub: sub}
}

// of takes the requests seen so far and counts those answered to user's inbox, but for
// consumer deletes. A command has
// had its answers, so its requests reached the server before the flush's PONG, which comes
// after them: they are all pending here.
func (r *jsRequests) of(user string) uint64 {
	r.t.Helper()
	require.NoError(r.t, r.nc.Flush())
	pending, _, err := r.sub.Pending()
	require.NoError(r.t, err)
	var n uint64
	for range pending {
		m, err := r.sub.NextMsg(time.Second)
		require.NoError(r.t, err)
		// A watch's consumer deleted as the command closes is sent or not by then: not counted.
		if strings.HasPrefix(m.Reply, broker.InboxPrefix(user)+".") && !strings.HasPrefix(m.Subject, "$JS.API.CONSUMER.DELETE.") {
			n++
		}
	}
	return n
}

// The commands that read the farm's stores through NATS bind to them as they are: as the
// operator and as the admin each works on a farm, with a few JetStream requests. They made
// the stores as a node does first (EnsureStores, CreateOnly): 21 requests here before the
// command read anything (corral tasks reads the event stream alone: 2 requests now).
func TestStoreReadingCommandsAskJetStreamLittle(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true, Users: []embedded.User{observer}})
	serial := f.Devices()[0].Serial
	farmtest.MustCall(t, f.Client("agent"), "acquire_device", map[string]any{"serial": serial})
	admin, operator := broker.UserName(broker.RoleAdmin, ""), broker.UserName(broker.RoleOperator, "")
	cases := []struct {
		user string
		args []string
		most uint64 // JetStream requests
	}{
		{operator, []string{"tasks"}, 3},
		{admin, []string{"tasks"}, 3},
		{operator, []string{"devices"}, 12},
		{admin, []string{"leases"}, 12},
		{admin, []string{"call", "list_available_devices", "{}"}, 12},
		{admin, []string{"release", serial, "--force"}, 12},
	}
	requests := watchJetStreamRequests(t, f.URL)
	for _, c := range cases {
		requests.of(c.user) // the farm's, before the command
		code, out, errOut := corralMain(t, append(c.args, "--nats-context", f.Context(c.user))...)
		asked := requests.of(c.user)
		require.Equal(t, 0, code, "corral %s as %s:\n%s%s", strings.Join(c.args, " "), c.user, out, errOut)
		t.Logf("corral %s as %s: %d JetStream requests", strings.Join(c.args, " "), c.user, asked)
		assert.NotZero(t, asked, "corral %s as %s: no JetStream request seen", strings.Join(c.args, " "), c.user)
		assert.LessOrEqual(t, asked, c.most, "corral %s as %s: JetStream requests", strings.Join(c.args, " "), c.user)
	}
}

// On a NATS server where no farm ever started, the commands that read its stores say so and
// what to start, as the admin (who may create stores) and as the operator, and leave the
// server as it was: they made the stores of a farm that was not there, then listed nothing.
func TestStoreReadingCommandsOnAnEmptyNATSSayThereIsNoFarm(t *testing.T) {
	ns, contextOf := authNATS(t)
	admin, operator := broker.UserName(broker.RoleAdmin, ""), broker.UserName(broker.RoleOperator, "")
	commands := [][]string{{"devices"}, {"leases"}, {"tasks"}, {"call", "list_available_devices", "{}"},
		{"release", "sim-01", "--force"}, {"devices", "forget", "--node", "n1"}}
	for _, user := range []string{admin, operator} {
		for _, args := range commands {
			if user == operator && (args[0] == "release" || args[len(args)-1] == "n1") {
				continue // the admin's own
			}
			code, out, errOut := corralMain(t, append(args, "--nats-context", contextOf(user), "--timeout", "20s")...)
			assert.Equal(t, 1, code, "corral %s as %s:\n%s%s", strings.Join(args, " "), user, out, errOut)
			assert.Contains(t, errOut, "no Corral farm on this NATS: start `corral up` or a gateway first", "corral %s as %s", strings.Join(args, " "), user)
		}
	}
	jsz, err := ns.Jsz(&server.JSzOptions{Accounts: true, Streams: true})
	require.NoError(t, err)
	var streams []string
	for _, a := range jsz.AccountDetails {
		for _, st := range a.Streams {
			streams = append(streams, st.Name)
		}
	}
	assert.Empty(t, streams, "streams made by commands that only read")
}

// authNATS starts a NATS server with JetStream and Corral's users (password pw), as corral
// nats-auth configures one, and no farm: contextOf names a user's natscli context.
func authNATS(t *testing.T) (*server.Server, func(user string) string) {
	t.Helper()
	users, err := broker.FarmUsers([]string{"n1"}, func(string) (string, error) { return "pw", nil })
	require.NoError(t, err)
	o := embedded.Options{Port: -1, StoreDir: t.TempDir()}
	for _, u := range users {
		p, err := u.Permissions()
		require.NoError(t, err)
		o.Users = append(o.Users, embedded.User{Name: u.Name, Password: u.Password, Permissions: embedded.Permissions(p)})
	}
	ns, err := embedded.Start(o, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	secrets, err := broker.OpenSecrets(t.TempDir())
	require.NoError(t, err)
	contexts, err := secrets.WriteContexts(ns.ClientURL(), "", users)
	require.NoError(t, err)
	return ns, func(user string) string {
		c, ok := contexts[user]
		require.True(t, ok, fmt.Sprintf("no NATS user %q", user))
		return c
	}
}
