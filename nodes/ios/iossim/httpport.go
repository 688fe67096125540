package iossim

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
)

// httpService serves one connection with h: an http.Server over a listener that yields that
// connection once, then waits for it to close.
func httpService(h http.Handler) service {
	return func(ctx context.Context, c *pipeConn, log *slog.Logger) {
		srv := &http.Server{
			Handler:     h,
			BaseContext: func(net.Listener) context.Context { return ctx },
			ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		}
		_ = srv.Serve(&oneConnListener{c: c})
	}
}

// oneConnListener accepts one connection. Its second Accept returns when that connection is
// closed, by net/http, a hijacking handler, or the device (Unhandle, Detach), so Serve returns.
type oneConnListener struct {
	c     *pipeConn
	taken atomic.Bool
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	if l.taken.CompareAndSwap(false, true) {
		return l.c, nil
	}
	<-l.c.done
	return nil, net.ErrClosed
}

// Close does nothing: the connection belongs to net/http once accepted.
func (l *oneConnListener) Close() error { return nil }

func (l *oneConnListener) Addr() net.Addr { return l.c.LocalAddr() }
