package tcplink

import (
	"net"
	"sync"
	"testing"
)

// Mute listens on a free loopback port, accepts every connection and never writes a byte: a
// server too loaded to answer, or one that is not the server the client expects (a NATS
// client waits for an INFO that never comes). Each accepted connection is sent on accepted
// (buffered: a test may read only the first). At the test's end it closes the listener and
// the connections.
func Mute(t testing.TB) (addr string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	acc := make(chan struct{}, 16)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case acc <- struct{}{}:
			default:
			}
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String(), acc
}
