package broker

import (
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// usersServer is a nats-server whose one user's password can be changed with a reload, as
// corral nats-auth and a reload of nats-server change it.
type usersServer struct {
	t    *testing.T
	ns   *server.Server
	port int
	user string
}

func startUsersServer(t *testing.T, user, password string) *usersServer {
	t.Helper()
	s := &usersServer{t: t, port: -1, user: user}
	ns, err := server.NewServer(s.options(password))
	require.NoError(t, err)
	ns.Start()
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	require.True(t, ns.ReadyForConnections(10*time.Second), "nats-server did not start")
	s.ns, s.port = ns, ns.Addr().(*net.TCPAddr).Port
	return s
}

func (s *usersServer) options(password string) *server.Options {
	return &server.Options{Host: "127.0.0.1", Port: s.port, NoLog: true, NoSigs: true,
		Users: []*server.User{{Username: s.user, Password: password}}}
}

// setPassword reloads the server with the user's password changed: it drops the clients
// logged in with another.
func (s *usersServer) setPassword(password string) {
	s.t.Helper()
	require.NoError(s.t, s.ns.ReloadOptions(s.options(password)))
}

// countAuthRefusals counts the refusals of nc's credentials, passing them on to its handler.
func countAuthRefusals(nc *nats.Conn) *atomic.Int32 {
	var n atomic.Int32
	before := nc.ErrorHandler()
	nc.SetErrorHandler(func(c *nats.Conn, sub *nats.Subscription, err error) {
		if isAuthRefusal(err) {
			n.Add(1)
		}
		before(c, sub, err)
	})
	return &n
}

// A process whose password NATS refuses as it reconnects (the users reloaded before its secret
// was fixed) keeps trying: nats.go gave up at the second refusal, and the process stayed up,
// closed for good, after the password worked again. The refusal is logged once, naming the
// user and what to do, without the password; the connection comes back by itself.
func TestConnectionKeepsReconnectingThroughRefusedCredentials(t *testing.T) {
	s := startUsersServer(t, "gateway", "old-pw-secret")
	pw := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pw, []byte("old-pw-secret\n"), 0o600))
	var logged logtest.Buffer
	nc, err := Connect(ConnectOptions{URL: s.ns.ClientURL(), Name: "t", User: "gateway", PasswordFile: pw},
		slog.New(slog.NewTextHandler(&logged, nil)))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	refusals := countAuthRefusals(nc)

	s.setPassword("new-pw-secret")
	require.Eventually(t, func() bool { return refusals.Load() >= 4 || nc.IsClosed() }, waitLong, 10*time.Millisecond,
		"the client was not refused again and again")
	require.False(t, nc.IsClosed(), "the connection gave up after %d refusals", refusals.Load())
	require.False(t, nc.IsConnected())
	require.NoError(t, ConnAlive(nc), "reconnecting is alive")

	s.setPassword("old-pw-secret")
	require.Eventually(t, nc.IsConnected, waitLong, 10*time.Millisecond, "not reconnected once the password works again: %s", nc.Status())
	require.NoError(t, nc.Flush())

	assert.Equal(t, 1, strings.Count(logged.String(), "password/credentials were refused"), "once an outage, not at every try:\n%s", logged.String())
	line := logged.Line("password/credentials were refused")
	assert.Contains(t, line, `NATS user \"gateway\"`)
	assert.Contains(t, line, "re-run corral nats-auth")
	assert.Contains(t, line, "level=ERROR")
	assert.NotContains(t, logged.String(), "NATS error", "the refusal is said once, in its own words")
	assert.NotContains(t, logged.String(), "pw-secret")
	assert.NotEmpty(t, logged.Line("NATS took the credentials again"))
}

// A connection closed for good (here: one made to give up at once) is not alive, and says
// why, so that /healthz fails and the process is restarted; one that is only reconnecting is.
func TestClosedConnectionIsNotAlive(t *testing.T) {
	s := startUsersServer(t, "gateway", "pw")
	nc, err := nats.Connect(s.ns.ClientURL(), nats.UserInfo("gateway", "pw"), nats.MaxReconnects(0))
	require.NoError(t, err)
	require.NoError(t, ConnAlive(nc))
	s.setPassword("other")
	require.Eventually(t, nc.IsClosed, waitLong, 10*time.Millisecond)
	err = ConnAlive(nc)
	require.ErrorIs(t, err, ErrNATSClosed)
	assert.Contains(t, err.Error(), "restart this process")
}
