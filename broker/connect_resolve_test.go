package broker

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// muteDNS listens on a loopback UDP port, reads every query and answers none: a DNS server
// that does not answer. Each query is sent on asked (buffered: a test may read only the first).
func muteDNS(t *testing.T) (*net.Resolver, <-chan struct{}) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = pc.Close() })
	asked := make(chan struct{}, 16)
	go func() {
		buf := make([]byte, 512)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			select {
			case asked <- struct{}{}:
			default:
			}
		}
	}()
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
	return r, asked
}

// Ctrl-C while a connect looks the server's host name up ends it at once: nats.go looked the
// name up itself, without a context, and the command waited out the resolver's timeouts.
func TestConnectContextStopsAHostLookup(t *testing.T) {
	r, asked := muteDNS(t)
	d := newDroppableDialer()
	d.dialer.Resolver = r
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	go func() {
		select {
		case <-asked: // the lookup is under way
			cancelled <- time.Now()
			cancel()
		case <-ctx.Done():
		}
	}()
	nc, err := connectWithin(ctx, d, "nats://nats.corral-dns.test:4222", nats.Name("t"))
	returned := time.Now()
	require.Nil(t, nc)
	var at time.Time
	select {
	case at = <-cancelled:
	default:
		t.Fatalf("the lookup never reached the DNS server: %v", err)
	}
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, returned.Sub(at), time.Second, "the lookup ran on after the connect's context ended")
}

// A name is looked up with the dialer's resolver and each of its addresses dialled: a
// connect to localhost reaches a server on 127.0.0.1, whatever order the addresses come in.
func TestDialHostDialsTheNamesAddresses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for range 5 { // the addresses shuffled: ::1, where nothing listens, first or not
		c, err := dialHost(t.Context(), &net.Dialer{Timeout: 5 * time.Second}, "tcp", net.JoinHostPort("localhost", port))
		require.NoError(t, err)
		_ = c.Close()
	}
	_, err = dialHost(t.Context(), &net.Dialer{Timeout: 5 * time.Second}, "tcp", "nowhere.invalid:4222")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dial tcp: lookup nowhere.invalid")
}

// A connect to a server named by its host name reaches it, the name looked up by the
// connection's dialer (dialHost, within the connect's context), not by nats.go itself, whose
// lookup no context ends.
func TestConnectContextLooksTheNameUpItself(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	url := strings.Replace(ns.ClientURL(), "127.0.0.1", "localhost", 1)
	require.Contains(t, url, "localhost")
	nc, err := ConnectContext(t.Context(), ConnectOptions{URL: url, Name: "t"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer nc.Close()
	assert.True(t, nc.Opts.SkipHostLookup, "nats.go looks the name up, with no context")
	require.NoError(t, nc.FlushTimeout(10*time.Second))
}
