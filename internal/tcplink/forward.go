// Package tcplink shapes a TCP link for tests: a forwarder whose bytes go through a pipe the
// test picks (delayed, held). It imports nothing of the project, so that every package's tests,
// broker's own among them, can use it.
package tcplink

import (
	"net"
	"sync"
	"testing"
)

// Forward listens on a free loopback port and forwards each connection to target, the bytes
// going through pipe(dst, src) each way, so that a test shapes the link (delays it, holds it).
// It returns the address to dial. At the test's end it closes the listener and every
// connection, and waits for the pipes to return.
func Forward(t testing.TB, target string, pipe func(dst, src net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
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
			wg.Go(func() { pipe(out, in) })
			wg.Go(func() { pipe(in, out) })
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
	return ln.Addr().String()
}
