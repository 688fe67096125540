// Package httpsent tells whether an HTTP request went out: a call whose answer was lost after
// it was sent may have run, one never sent did not. The stdio bridge, corral run's steps and
// corral call word their lost calls by it.
package httpsent

import (
	"context"
	"net/http/httptrace"
	"sync/atomic"
)

// Trace returns ctx traced so that sent says whether the request made with it was written
// whole. Each attempt of the transport (a retry on a new connection) starts unsent.
func Trace(ctx context.Context) (context.Context, *atomic.Bool) {
	var sent atomic.Bool
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn:      func(string) { sent.Store(false) },
		WroteRequest: func(w httptrace.WroteRequestInfo) { sent.Store(w.Err == nil) },
	}), &sent
}
