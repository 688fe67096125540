package broker

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// The reconnection's log line names the server with its password as REDACTED, the word the
// rest of Corral hides a secret with, not nats.go's xxxxx.
func TestReconnectedLogShowsREDACTED(t *testing.T) {
	r := startRestartableNATS(t)
	hostPort := strings.TrimPrefix(r.ns.ClientURL(), "nats://")
	var logged logtest.Buffer
	nc, err := Connect(ConnectOptions{URL: "nats://operator:hunter2pw@" + hostPort, Name: "t"}, slog.New(slog.NewTextHandler(&logged, nil)))
	require.NoError(t, err)
	t.Cleanup(nc.Close)

	r.restart()
	require.Eventually(t, func() bool { return logged.Line("NATS reconnected") != "" }, waitLong, 10*time.Millisecond, "no reconnection logged")
	line := logged.Line("NATS reconnected")
	assert.Contains(t, line, "operator:REDACTED@")
	assert.NotContains(t, line, "xxxxx")
	assert.NotContains(t, logged.String(), "hunter2pw")
}
