package embedded_test

import (
	"log/slog"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// A taken port is refused with a way out that its callers have: corral up has no --nats-url
// and corral node --site refuses one, so the message may not offer it as theirs.
func TestPortInUseNamesWhatCorralUpCanDo(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	ns, err := embedded.Start(embedded.Options{Port: port, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err == nil {
		ns.Shutdown()
		t.Fatal("started on a taken port")
	}
	msg := err.Error()
	assert.Contains(t, msg, "port "+strconv.Itoa(port)+" on 127.0.0.1 is in use")
	assert.Contains(t, msg, "pass --nats-port with another port, or -1 for any free port")
	assert.Contains(t, msg, "run corral node and corral gateway with its --nats-context")
	assert.NotContains(t, msg, "or --nats-url to join", "corral up has no --nats-url")
}
