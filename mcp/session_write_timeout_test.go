package mcp

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// stuckSessionsFarm is a farm whose sessions KV never answers a write: a NATS server whose
// disk is full acknowledges no write, and each waits for its caller's deadline.
type stuckSessionsFarm struct{ *fakeFarm }

func (f stuckSessionsFarm) UpdateSessionDevice(ctx context.Context, _ string, _ func(*broker.SessionDefault) bool) error {
	<-ctx.Done()
	return ctx.Err()
}

// postMCP posts one message of session ("": none) to url and returns the answer's session id
// and body.
func postMCP(t *testing.T, url, session, body string) (string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", body, resp.StatusCode, b)
	}
	return resp.Header.Get("Mcp-Session-Id"), string(b)
}

// A session's writes on a call's way (its client name with its first call, the lease
// acquire_device took) cost a call at most sessionWriteTimeout each when the store takes no
// writes, and the lease still goes out: before, the call waited for its whole deadline.
func TestStuckSessionStoreCostsACallSecondsNotItsDeadline(t *testing.T) {
	h := startHTTPGateway(t, stuckSessionsFarm{newFakeFarm(t)}, Options{})
	url := h.srv.URL + "/mcp"
	session, _ := postMCP(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if session == "" {
		t.Fatal("initialize opened no session")
	}
	start := time.Now()
	_, answer := postMCP(t, url, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"acquire_device","arguments":{"platform":"android"}}}`)
	took := time.Since(start)
	if !strings.Contains(answer, "Leased device") {
		t.Fatalf("acquire_device with a stuck session store answered %s", answer)
	}
	// Two bounded writes (client name, lease) and slack for a loaded machine.
	if limit := 2*sessionWriteTimeout + 4*time.Second; took > limit {
		t.Errorf("acquire_device took %s with a stuck session store, want under %s", took, limit)
	}
	for _, want := range []string{"the session's client name could not be kept", "the session's lease could not be remembered"} {
		if h.logs.Line(want) == "" {
			t.Errorf("no log line %q in:\n%s", want, h.logs)
		}
	}
	if line := h.logs.Line("the session's lease could not be remembered"); !strings.Contains(line, "pass lease") {
		t.Errorf("the lease's failed write does not say what to do: %q", line)
	}
}
