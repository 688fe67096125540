package broker

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// SlowLink forwards TCP to a NATS server, every byte either way arriving the link's latency
// after it was sent (latePipe's shape): set with Slow, so that a farm starts fast and its
// link turns slow later. For the tests of package broker_test.
type SlowLink struct {
	addr  string
	delay *atomic.Int64
}

// StartSlowLink forwards connections made to its URL to target (host:port), with no latency
// until Slow.
func StartSlowLink(t *testing.T, target string) SlowLink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := SlowLink{addr: ln.Addr().String(), delay: &atomic.Int64{}}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				_ = in.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, in, out)
			mu.Unlock()
			wg.Go(func() { l.pipe(out, in) })
			wg.Go(func() { l.pipe(in, out) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return l
}

// URL is where a client connects through the link.
func (l SlowLink) URL() string { return "nats://" + l.addr }

// Slow makes every byte sent from now on arrive delay later, either way.
func (l SlowLink) Slow(delay time.Duration) { l.delay.Store(int64(delay)) }

// pipe copies src to dst, each chunk written the link's latency after it was read, in order.
func (l SlowLink) pipe(dst, src net.Conn) {
	type chunk struct {
		b   []byte
		due time.Time
	}
	chunks := make(chan chunk, 1<<12)
	go func() {
		defer close(chunks)
		for {
			b := make([]byte, 32<<10)
			n, err := src.Read(b)
			if n > 0 {
				chunks <- chunk{b[:n], time.Now().Add(time.Duration(l.delay.Load()))}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range chunks {
		time.Sleep(time.Until(c.due)) // the link's latency, not a wait in the test
		if _, err := dst.Write(c.b); err != nil {
			_ = src.Close()
			break
		}
	}
	_ = dst.Close()
	for range chunks { // let the reader end
	}
}
