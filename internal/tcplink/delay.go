package tcplink

import (
	"net"
	"time"
)

// Delay is a pipe for Forward that writes each chunk it reads delay() after reading it, in
// order: a long or slow network path. delay is read as each chunk arrives, so a test may turn
// the link slow once its farm is up.
func Delay(delay func() time.Duration) func(dst, src net.Conn) {
	return func(dst, src net.Conn) {
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
					chunks <- chunk{b[:n], time.Now().Add(delay())}
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
}

// Fixed is a delay of d for Delay.
func Fixed(d time.Duration) func() time.Duration { return func() time.Duration { return d } }
