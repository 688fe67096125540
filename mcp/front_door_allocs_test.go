package mcp

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// deadlineDiscard is a ResponseWriter with a read deadline, as net/http's own has.
type deadlineDiscard struct {
	flushDiscard
	deadline time.Time
}

func (d *deadlineDiscard) SetReadDeadline(t time.Time) error { d.deadline = t; return nil }

// The front door's checks of a call that passes them (the read deadline set, a loopback
// listener's Host and Origin judged) allocate nothing: the listener's address was judged by
// its text (two allocations) and each deadline took an http.ResponseController (one more).
func TestFrontDoorChecksAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	g := &Gateway{limits: Limits{ReadTimeout: time.Minute}}
	var passed bool
	h := g.readDeadline((&originCheck{}).wrap(g, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { passed = true })))
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", nil)
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}))
	w := &deadlineDiscard{flushDiscard: flushDiscard{h: http.Header{}}}
	if n := testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) }); n > 0 {
		t.Errorf("readDeadline and the origin check make %v allocations a request, want 0", n)
	}
	if !passed || w.deadline.IsZero() {
		t.Errorf("the request passed: %v; read deadline set: %v", passed, w.deadline)
	}
	for _, tc := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, true},
		{&net.TCPAddr{IP: net.IPv4(127, 1, 2, 3)}, true},
		{&net.TCPAddr{IP: net.IPv6loopback}, true},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1")}, true},
		{&net.TCPAddr{IP: net.IPv4(10, 0, 0, 1)}, false},
		{&net.TCPAddr{}, false},
		{&net.UnixAddr{Name: "/run/corral.sock", Net: "unix"}, false},
	} {
		r := r.WithContext(context.WithValue(context.Background(), http.LocalAddrContextKey, tc.addr))
		if got := loopbackConn(r); got != tc.want {
			t.Errorf("loopbackConn on %v = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

// A request's body, read once by bufferBody, is handed on whole and readable again with one
// allocation (its buffered value) besides the request's copy and its context's value: the
// reader and its closer took two more.
func TestBufferedBodyIsHandedOnInOneAllocation(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tap"}}`)
	r := withBody(httptest.NewRequest(http.MethodPost, "/mcp", nil), body)
	got, err := io.ReadAll(r.Body)
	if err != nil || string(got) != string(body) || r.ContentLength != int64(len(body)) {
		t.Fatalf("body handed on: %q, %v (length %d), want %q", got, err, r.ContentLength, body)
	}
	if err := r.Body.Close(); err != nil || string(bodyOf(r)) != string(body) {
		t.Errorf("after reading: close %v, bodyOf %q", err, bodyOf(r))
	}
	if raceEnabled {
		return // the race detector allocates
	}
	in := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	if n := testing.AllocsPerRun(100, func() { _ = withBody(in, body) }); n > 3 {
		t.Errorf("withBody makes %v allocations, want 3 (the body's value, its context, the request's copy)", n)
	}
}
