package broker

import (
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/internal/tcplink"
)

// A gateway whose NATS stalls as it writes a loss verdict (QA: `corral up`, whose process
// holds the NATS server, stopped 40 s while a second gateway ran) still tells the node: its
// first device write, sent into the stall, is applied when NATS answers again, after its
// deadline; the loss event, how the node learns it must show its devices again, went out
// with no deadline left under one shared by every write, and the device stayed offline.
func TestReapTellsTheNodeAfterAWriteStalled(t *testing.T) {
	s := openStores(t)
	n1 := startFakeNode(t, s, "n1")
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline, Epoch: 3})
	told, err := n1.nc.SubscribeSync(fmt.Sprintf(EventNodeT, "n1", "lost"))
	require.NoError(t, err)
	require.NoError(t, n1.nc.Flush())

	link := startStallLink(t, s.JS.Conn().ConnectedAddr())
	gwNC, err := nats.Connect("nats://" + link.addr)
	require.NoError(t, err)
	t.Cleanup(gwNC.Close)
	gs, err := EnsureStores(t.Context(), gwNC, StoreOptions{})
	require.NoError(t, err)

	var stalled, resumed sync.Once
	logs := &verdictHook{Recorder: &logtest.Recorder{}, at: func(r slog.Record) {
		switch {
		case r.Message == "node lost":
			stalled.Do(link.stall) // the device write goes into the stall
		case strings.HasPrefix(r.Message, "registry update"):
			resumed.Do(link.resume) // it gave up; NATS answers again and applies it
		}
	}}
	c := startClient(t, gs, ClientOptions{Reap: true, LostAfter: testLostAfter, Log: slog.New(logs)})
	waitCached(t, c, "d1", StateOnline)
	require.Eventually(t, func() bool { return slices.Contains(c.Nodes(), "n1") }, waitLong, 5*time.Millisecond, "n1 heard")

	n1.stopBeats()
	_, err = told.NextMsg(waitLong + reapWait)
	require.NoError(t, err, "the node was never told of its loss: its devices stay offline while it serves them")
	d, _ := getDevice(t, s, "d1")
	assert.True(t, DeclaredLost(d), "the stalled write was not applied, so this test did not stall it: %+v", d)
}

// stallLink forwards TCP connections to a NATS server and can stall them, as a stopped
// server process does: bytes sent meanwhile wait in the link (the sender's writes succeed)
// and arrive, in order, on resume.
type stallLink struct {
	addr string

	mu      sync.Mutex
	cond    *sync.Cond
	stalled bool
}

func startStallLink(t *testing.T, target string) *stallLink {
	t.Helper()
	l := &stallLink{}
	l.cond = sync.NewCond(&l.mu)
	l.addr = tcplink.Forward(t, target, l.pump)
	t.Cleanup(l.resume) // before Forward's: a held pump returns to see its connection closed
	return l
}

// pump copies src to dst, holding each chunk while the link is stalled.
func (l *stallLink) pump(dst, src net.Conn) {
	defer func() { _ = dst.Close(); _ = src.Close() }()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			l.mu.Lock()
			for l.stalled {
				l.cond.Wait()
			}
			l.mu.Unlock()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (l *stallLink) stall() {
	l.mu.Lock()
	l.stalled = true
	l.mu.Unlock()
}

func (l *stallLink) resume() {
	l.mu.Lock()
	l.stalled = false
	l.mu.Unlock()
	l.cond.Broadcast()
}
