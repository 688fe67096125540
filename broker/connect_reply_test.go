package broker

import (
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// startFarmUsersNATS starts an embedded server with a gateway user and node n2's user, on port
// (-1: any), in dir.
func startFarmUsersNATS(t *testing.T, port int, dir string) *server.Server {
	t.Helper()
	gw, err := PermissionsFor(RoleGateway, "")
	require.NoError(t, err)
	node, err := PermissionsFor(RoleNode, "n2")
	require.NoError(t, err)
	ns, err := embedded.Start(embedded.Options{Port: port, StoreDir: dir, Users: []embedded.User{
		{Name: "gateway", Password: "gw-pw", Permissions: embedded.Permissions(gw)},
		{Name: "node-n2", Password: "node-pw", Permissions: embedded.Permissions(node)},
	}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return ns
}

// The answer to a request received before a NATS restart is refused after it: the server's
// grant to answer (allow_responses) was for the connection before. That is said as what it is,
// at WARN, not as a role that may not publish there ("use the NATS context of a role that may").
func TestRefusedAnswerAfterAReconnectIsSaidAsSuch(t *testing.T) {
	dir := t.TempDir()
	ns := startFarmUsersNATS(t, -1, dir)
	port := ns.Addr().(*net.TCPAddr).Port
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })

	var logged logtest.Buffer
	node, err := Connect(ConnectOptions{URL: ns.ClientURL(), Name: "node-n2", User: "node-n2", password: "node-pw"},
		slog.New(slog.NewTextHandler(&logged, nil)))
	require.NoError(t, err)
	t.Cleanup(node.Close)
	gw, err := Connect(ConnectOptions{URL: ns.ClientURL(), Name: "gateway", User: "gateway", password: "gw-pw"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(gw.Close)

	requests := make(chan *nats.Msg, 1)
	_, err = node.ChanSubscribe(nodeEndpoint("n2", EndpointTask), requests)
	require.NoError(t, err)
	require.NoError(t, node.Flush())
	go func() { _, _ = gw.Request(nodeEndpoint("n2", EndpointTask), []byte("x"), waitLong) }()
	var req *nats.Msg
	select {
	case req = <-requests:
	case <-time.After(waitLong):
		t.Fatal("the node got no request")
	}

	ns.Shutdown()
	ns.WaitForShutdown()
	ns = startFarmUsersNATS(t, port, dir)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	require.Eventually(t, func() bool { return node.IsConnected() && gw.IsConnected() }, waitLong, 10*time.Millisecond, "not reconnected")

	require.NoError(t, req.Respond([]byte("answer")))
	require.Eventually(t, func() bool { return logged.Line("NATS refused") != "" }, waitLong, 10*time.Millisecond, "no refusal of the answer")
	line := logged.Line("NATS refused")
	assert.Contains(t, line, "level=WARN")
	assert.Contains(t, line, "the answer to a request received before the connection to NATS was made again could not be sent")
	assert.Contains(t, line, "a task's caller gets the task's record instead")
	assert.NotContains(t, line, "role may not")
	assert.True(t, strings.Contains(line, `publish to \"_INBOX_gateway.`), line)
}

// A second answer to a node's probe of a caller, dropped by its one-message channel, is said
// at WARN as what it is, not as an ERROR "slow consumer".
func TestSecondProbeAnswerIsNoSlowConsumerError(t *testing.T) {
	r := startRestartableNATS(t)
	var logged logtest.Buffer
	nc, err := Connect(ConnectOptions{URL: r.ns.ClientURL(), Name: "t"}, slog.New(slog.NewTextHandler(&logged, nil)))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	subject := CallerAnswerSubject("n2", "t_1")
	answers := make(chan *nats.Msg, 1)
	_, err = nc.ChanSubscribe(subject, answers)
	require.NoError(t, err)
	require.NoError(t, nc.Publish(subject, CallerWaits))
	require.NoError(t, nc.Publish(subject, CallerWaits))
	require.Eventually(t, func() bool { return logged.Line("slow consumer") != "" }, waitLong, 10*time.Millisecond, "the drop not reported")
	line := logged.Line("slow consumer")
	assert.Contains(t, line, "level=WARN")
	assert.Contains(t, line, "nothing is lost")
	assert.NotContains(t, logged.String(), "level=ERROR")
	assert.True(t, isCallerAnswer(subject))
	assert.False(t, isCallerAnswer(nodeEndpoint("n2", EndpointTask)))
	assert.False(t, isCallerAnswer("_INBOX.caller_x"))
}

// A connection closed as its process stops, after a refusal of a subject (an error that closes
// nothing), is not said to be closed for good.
func TestCloseAfterARefusalIsNotClosedForGood(t *testing.T) {
	ns := startFarmUsersNATS(t, -1, t.TempDir())
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	var logged logtest.Buffer
	nc, err := Connect(ConnectOptions{URL: ns.ClientURL(), Name: "node-n2", User: "node-n2", password: "node-pw"},
		slog.New(slog.NewTextHandler(&logged, nil)))
	require.NoError(t, err)
	require.NoError(t, nc.Publish(nodeEndpoint("n3", EndpointTask), nil))
	require.Eventually(t, func() bool { return logged.Line("NATS refused") != "" }, waitLong, 10*time.Millisecond, "no refusal")
	handler, handled := nc.ClosedHandler(), make(chan struct{})
	nc.SetClosedHandler(func(c *nats.Conn) { handler(c); close(handled) })
	nc.Close()
	<-handled
	assert.Empty(t, logged.Line("NATS connection is closed"), logged.String())
}
