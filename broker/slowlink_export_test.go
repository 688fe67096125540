package broker

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/tcplink"
)

// SlowLink forwards TCP to a NATS server, every byte either way arriving the link's latency
// after it was sent: set with Slow, so that a farm starts fast and its link turns slow later.
// For the tests of package broker_test.
type SlowLink struct {
	addr  string
	delay *atomic.Int64
}

// StartSlowLink forwards connections made to its URL to target (host:port), with no latency
// until Slow.
func StartSlowLink(t *testing.T, target string) SlowLink {
	t.Helper()
	delay := &atomic.Int64{}
	addr := tcplink.Forward(t, target, tcplink.Delay(func() time.Duration { return time.Duration(delay.Load()) }))
	return SlowLink{addr: addr, delay: delay}
}

// URL is where a client connects through the link.
func (l SlowLink) URL() string { return "nats://" + l.addr }

// Slow makes every byte sent from now on arrive delay later, either way.
func (l SlowLink) Slow(delay time.Duration) { l.delay.Store(int64(delay)) }
