package broker_test

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/tcplink"
)

// A gateway cut off from NATS while `corral devices forget` ran missed the forgotten event and
// showed the node lost until it restarted. Once it is back it asks the registry about each node
// it shows lost: n2, whose entries are gone, is no longer shown.
func TestGatewayCutOffWhenANodeWasForgottenClearsItOnReconnect(t *testing.T) {
	link := &cutLink{}
	f := startRoutedLossFarm(t, 1, func(addr string) func(string, string) string {
		link.addr = tcplink.Forward(t, addr, link.pipe)
		return func(part, url string) string {
			if part == "gateway-0" {
				return "nats://" + link.addr
			}
			return url
		}
	}, "n1", "n2")
	gw := f.gateways[0]
	f.nodes["n2"].Kill()
	require.Eventually(t, func() bool {
		d, ok := gw.client.Device("n2-p1")
		return f.metric(gw, "corral_node_lost", "n2") == 1 && ok && broker.DeclaredLost(d)
	}, 20*time.Second, 10*time.Millisecond, "n2 never shown lost, its phone offline for it (the verdict written)")

	link.cut()
	require.Eventually(t, func() bool { return !gw.nc.IsConnected() }, 10*time.Second, 10*time.Millisecond,
		"the gateway is still connected through a cut link")

	// corral devices forget, by another connection: the entries removed, then the event.
	admin := f.connect("admin")
	js, err := jetstream.New(admin)
	require.NoError(t, err)
	reg, err := js.KeyValue(t.Context(), broker.RegistryBucket)
	require.NoError(t, err)
	require.NoError(t, reg.Delete(t.Context(), broker.RegistryKey("n2", "n2-p1")))
	require.NoError(t, broker.RecordNodeForgotten(t.Context(), js, "n2", "test"))
	require.Equal(t, 1.0, f.metric(gw, "corral_node_lost", "n2"), "cut off, the gateway heard the forget")

	link.heal()
	require.Eventually(t, func() bool { return f.series(gw, "corral_node_lost", "n2") == 0 }, 20*time.Second, 10*time.Millisecond,
		"reconnected, the gateway still shows n2 lost though it was forgotten")
	require.Equal(t, 1.0, f.metric(gw, "corral_node_up", "n1"), "n1, alive, is shown up")
	require.NotEmpty(t, f.logs.lines("node forgotten while this gateway was cut off from NATS", "node=n2"))
}

// cutLink forwards TCP connections to a NATS server; cut closes them and refuses new ones
// until heal.
type cutLink struct {
	addr string

	mu    sync.Mutex
	down  bool
	conns []net.Conn
}

func (l *cutLink) pipe(dst, src net.Conn) {
	defer func() { _ = dst.Close(); _ = src.Close() }()
	l.mu.Lock()
	if l.down {
		l.mu.Unlock()
		return
	}
	l.conns = append(l.conns, dst, src)
	l.mu.Unlock()
	_, _ = io.Copy(dst, src)
}

func (l *cutLink) cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = true
	for _, c := range l.conns {
		_ = c.Close()
	}
	l.conns = nil
}

func (l *cutLink) heal() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = false
}
