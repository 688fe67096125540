package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/tcplink"
)

// countedLink forwards connections to a NATS server, counting them; with holdFirst, the first
// one's bytes go nowhere, as a link too loaded to answer in time.
type countedLink struct {
	holdFirst bool

	mu    sync.Mutex
	conns map[net.Conn]int // both ends of a connection → its number, from 1
	count int
}

func (l *countedLink) pipe(dst, src net.Conn) {
	l.mu.Lock()
	n, ok := l.conns[src]
	if !ok {
		if n, ok = l.conns[dst]; !ok {
			l.count++
			n = l.count
			l.conns[src], l.conns[dst] = n, n
		}
	}
	l.mu.Unlock()
	if n == 1 && l.holdFirst {
		_, _ = io.Copy(io.Discard, src)
		_ = dst.Close()
		return
	}
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
}

func (l *countedLink) connections() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count
}

// A command whose first connect to NATS gets no answer in time connects again: corral call
// under load failed with "i/o timeout", no second try.
func TestCommandConnectsAgainAfterATimeout(t *testing.T) {
	noNATSSettings(t)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	link := &countedLink{holdFirst: true, conns: map[net.Conn]int{}}
	at := tcplink.Forward(t, f.NATS.Addr().String(), link.pipe)
	code, out, errOut := corralMain(t, "call", "--nats-url", "nats://"+at, "--log-level", "error", "list_available_devices", "{}")
	require.Equal(t, 0, code, "%s%s", out, errOut)
	assert.Contains(t, out, f.Devices()[0].Serial)
	assert.Equal(t, 2, link.connections(), "connections to NATS: the held one and the next")
}

// Credentials NATS refuses are not tried again: they will be refused again.
func TestCommandDoesNotConnectAgainWithRefusedCredentials(t *testing.T) {
	noNATSSettings(t)
	ns, _ := authNATS(t)
	link := &countedLink{conns: map[net.Conn]int{}}
	at := tcplink.Forward(t, ns.Addr().String(), link.pipe)
	code, out, errOut := corralMain(t, "devices", "--nats-url", "nats://admin:wrong@"+at, "--log-level", "error")
	require.Equal(t, 1, code, "%s%s", out, errOut)
	assert.Contains(t, errOut, "Authorization Violation")
	assert.Equal(t, 1, link.connections(), "connections to NATS")
}

// A refusal of the connection (nothing listens) and a timeout are tried again; a refusal of
// the credentials is not.
func TestTransientConnectErrors(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	_, refused := broker.Connect(broker.ConnectOptions{URL: "nats://" + closed}, log)
	require.Error(t, refused)
	assert.True(t, transientConnectError(refused), "%v", refused)

	ns, _ := authNATS(t)
	_, denied := broker.Connect(broker.ConnectOptions{URL: "nats://admin:wrong@" + ns.Addr().String()}, log)
	require.Error(t, denied)
	assert.False(t, transientConnectError(denied), "%v", denied)
}

// cancelOnRecord is a slog handler that calls cancel at the first record whose message is msg.
type cancelOnRecord struct {
	msg    string
	cancel context.CancelFunc
	at     chan time.Time // when it cancelled
}

func (h cancelOnRecord) Enabled(context.Context, slog.Level) bool { return true }
func (h cancelOnRecord) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h cancelOnRecord) WithGroup(string) slog.Handler            { return h }
func (h cancelOnRecord) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		select {
		case h.at <- time.Now():
			h.cancel()
		default:
		}
	}
	return nil
}

// Ctrl-C while a command waits to connect again ends the wait at once, with the context's
// error, and starts no further try: corral call slept between tries, ignoring it.
func TestConnectStopsBetweenTriesWhenCancelled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String() // nothing listens: refused, a transient error tried again
	require.NoError(t, ln.Close())

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h := cancelOnRecord{msg: "NATS connect failed, trying again", cancel: cancel, at: make(chan time.Time, 1)}
	nc, err := connect(ctx, broker.ConnectOptions{URL: "nats://" + closed}, slog.New(h))
	require.Nil(t, nc)
	select {
	case <-h.at:
	default:
		t.Fatal("the first try was not said to have failed: the context was never cancelled")
	}
	require.ErrorIs(t, err, context.Canceled, "the error of a connect cancelled between tries")
	// Said only by the pause's select on ctx: a pause that waited its time out would reach the
	// next try's check of ctx, which says "connecting to NATS: context canceled" alone.
	assert.Contains(t, err.Error(), "stopped before try 2 of 3")
}
