package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// Limits bound what callers can make the front door hold: the bytes of a request body, the
// time to send one, idle keep-alive connections, connections at once and protocol sessions.
// A zero field takes its default (docs/auth.md); MaxConns below zero means no cap.
type Limits struct {
	// MaxBody is the largest request body /mcp reads: requests are small (screenshots travel
	// in responses), and mcp-go reads a whole body into memory before parsing it.
	MaxBody int64
	// ReadTimeout is the time a request has to arrive whole, headers and body: a stalled
	// body holds a connection, a goroutine and a file descriptor until it ends.
	ReadTimeout time.Duration
	// IdleTimeout closes keep-alive connections that carry no request for this long.
	IdleTimeout time.Duration
	// MaxConns caps the connections the listener keeps open at once (Listener).
	MaxConns int
	// SessionTTL forgets a protocol session idle this long; MaxSessions caps the live sessions
	// of one principal (sessions.go).
	SessionTTL  time.Duration
	MaxSessions int
	// SessionsPerPrincipal bounds the sessions' entries in NATS of one principal, farm-wide:
	// a new one past it drops the oldest (sessions_per_principal.go). 0: SessionsPerPrincipalFor
	// the default bucket and the policy's principals.
	SessionsPerPrincipal int
}

// Defaults of Limits.
const (
	DefaultMaxBody     = 4 << 20
	DefaultReadTimeout = 30 * time.Second
	DefaultIdleTimeout = 2 * time.Minute
	DefaultMaxConns    = 1024
	DefaultSessionTTL  = 30 * time.Minute
	DefaultMaxSessions = 1000
)

// withDefaults fills in the zero fields.
func (l Limits) withDefaults() Limits {
	if l.MaxBody <= 0 {
		l.MaxBody = DefaultMaxBody
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultReadTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxConns == 0 {
		l.MaxConns = DefaultMaxConns
	}
	if l.SessionTTL <= 0 {
		l.SessionTTL = DefaultSessionTTL
	}
	if l.MaxSessions <= 0 {
		l.MaxSessions = DefaultMaxSessions
	}
	return l
}

// headerTimeout is the time a connection has to send a request's headers, a few hundred bytes:
// a connection still waiting for them holds a goroutine and a file descriptor.
const headerTimeout = 5 * time.Second

// HTTPServer returns the server for Handler, with the header and idle timeouts of the limits.
// There is no server-wide ReadTimeout or WriteTimeout: a tool call's response may stream for
// an hour, and a connection deadline that fires then cancels the call. The body's deadline is
// set per request instead (readDeadline, bufferBody). Serve it on Listener(ln). Its Shutdown
// closes the gateway (Close).
func (g *Gateway) HTTPServer() *http.Server {
	srv := &http.Server{
		Handler:           g.Handler(),
		ReadHeaderTimeout: min(headerTimeout, g.limits.ReadTimeout),
		IdleTimeout:       g.limits.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ConnState:         connState, // the listener reclaims idle connections at its cap
	}
	srv.RegisterOnShutdown(g.Close)
	return srv
}

// readDeadline gives every request ReadTimeout to arrive whole. /mcp lifts it once the body is
// read (bufferBody); other paths read no body and answer at once.
func (g *Gateway) readDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Not every ResponseWriter has deadlines (a test recorder): then only the size bounds.
		setReadDeadline(w, time.Now().Add(g.limits.ReadTimeout))
		next.ServeHTTP(w, r)
	})
}

// limitBody refuses at once a body that says it is too large, and bounds the one that does
// not say (chunked), before anything reads it.
func (g *Gateway) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > g.limits.MaxBody {
			g.tooLarge(w, r)
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, g.limits.MaxBody)
		}
		next.ServeHTTP(w, r)
	})
}

// bodyKey carries a request's body, read once by bufferBody, to the middleware after it,
// and its remote address to the denial log (remoteFrom).
type bodyKey struct{}

// buffered is what bodyKey carries, and also the body handed on (an io.ReadCloser): one
// allocation where the value, the reader and its closer took three, on every request.
type buffered struct {
	bytes.Reader
	body   []byte
	remote string
}

// Close does nothing: the body is in memory.
func (*buffered) Close() error { return nil }

// bufferBody reads the request's body (within ReadTimeout and MaxBody), lifts the read
// deadline so that a long tool call's stream is not cut, and hands the bytes on.
func (g *Gateway) bufferBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil && r.Body != http.NoBody {
			var buf bytes.Buffer
			if n := r.ContentLength; n > 0 && n <= g.limits.MaxBody {
				buf.Grow(int(n) + bytes.MinRead) // one allocation: ReadFrom wants MinRead free to see the end
			}
			_, err := buf.ReadFrom(r.Body)
			var tooBig *http.MaxBytesError
			switch {
			case errors.As(err, &tooBig):
				g.tooLarge(w, r)
				return
			case err != nil:
				g.unreadBody(w, r, err)
				return
			}
			body = buf.Bytes()
			if problem := shapeProblem(body); problem != "" {
				g.refuseShape(w, r, problem)
				return
			}
		}
		setReadDeadline(w, time.Time{})
		next.ServeHTTP(w, withBody(r, body))
	})
}

// unreadBody answers a body that could not be read: 408 when ReadTimeout ran out, 400 when it
// was malformed (a chunk size that is not hex) or cut short. Either closes the connection.
func (g *Gateway) unreadBody(w http.ResponseWriter, r *http.Request, err error) {
	w.Header().Set("Connection", "close")
	var ne net.Error
	if errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		g.refusedRequest(r, reasonSlowBody, "refused request: its body did not arrive", "err", err)
		writeRPCError(w, http.StatusRequestTimeout, nil, codeInvalidRequest, fmt.Sprintf(
			"request body not received within %s (--read-timeout): send the whole body at once", g.limits.ReadTimeout))
		return
	}
	g.refusedRequest(r, reasonBadBody, "refused request: its body could not be read", "err", err)
	msg := fmt.Sprintf("the request body ended before it was whole (%v): send the whole body, with a Content-Length or a valid chunked encoding", err)
	if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		msg = fmt.Sprintf("the request body's chunked encoding is malformed (%v): send a Content-Length instead, or valid chunks (a hex size, CRLF, the bytes, CRLF)", err)
	}
	writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, msg)
}

// withBody returns r carrying body, both as its Body and for bodyOf.
func withBody(r *http.Request, body []byte) *http.Request {
	b := &buffered{body: body, remote: r.RemoteAddr}
	b.Reset(body)
	r = r.WithContext(context.WithValue(r.Context(), bodyKey{}, b))
	r.Body = b
	r.ContentLength = int64(len(body))
	return r
}

// bodyOf returns the body bufferBody read.
func bodyOf(r *http.Request) []byte {
	if b, ok := r.Context().Value(bodyKey{}).(*buffered); ok {
		return b.body
	}
	return nil
}

// tooLarge answers 413 and closes the connection, so the rest of the body is never read.
func (g *Gateway) tooLarge(w http.ResponseWriter, r *http.Request) {
	g.refusedRequest(r, reasonBody, "refused request: body too large", "content_length", r.ContentLength)
	w.Header().Set("Connection", "close")
	writeRPCError(w, http.StatusRequestEntityTooLarge, nil, codeInvalidRequest, fmt.Sprintf(
		"request body too large: this gateway reads at most %d bytes (--max-body); MCP requests are small, so send less (images travel in responses, not requests)",
		g.limits.MaxBody))
}

// JSON-RPC error codes the front door answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeSession        = -32001 // mcp-go's code for session errors
)

// writeRPCError answers an HTTP status with a JSON-RPC error body, which MCP clients show.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
}
