package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/corral-farm/corral/internal/farmtest"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// rawCaller is the lightest possible MCP client: one HTTP POST of a prepared tools/call body
// per call, in a protocol session (2025-11-25), reading the JSON answer. Timing it measures the
// gateway's side of a call without an MCP client library's own cost.
type rawCaller struct {
	url     string
	session string
	body    []byte
	client  *http.Client
}

const rawProtocol = "2025-11-25"

func newRawCaller(b *testing.B, url, tool string, args map[string]any) *rawCaller {
	b.Helper()
	r := &rawCaller{url: url, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}}
	b.Cleanup(r.client.CloseIdleConnections)
	init, err := r.post([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rawProtocol +
		`","capabilities":{},"clientInfo":{"name":"bench-raw","version":"1"}}}`))
	if err != nil {
		b.Fatalf("initialize: %v", err)
	}
	r.session = init.Header.Get("Mcp-Session-Id")
	if _, err := r.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		b.Fatalf("initialized: %v", err)
	}
	r.body, err = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// call sends the prepared tools/call and checks that the answer is not an error.
func (r *rawCaller) call() error {
	resp, err := r.post(r.body)
	if err != nil {
		return err
	}
	var m struct {
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(resp.body, &m); err != nil {
		return fmt.Errorf("answer %q: %w", resp.body, err)
	}
	if m.Error != nil || m.Result.IsError {
		return fmt.Errorf("tools/call failed: %s", resp.body)
	}
	return nil
}

type rawResponse struct {
	Header http.Header
	body   []byte
}

func (r *rawCaller) post(body []byte) (rawResponse, error) {
	req, err := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return rawResponse{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		req.Header.Set("Mcp-Protocol-Version", rawProtocol)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return rawResponse{}, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return rawResponse{}, err
	}
	if resp.StatusCode >= 300 {
		return rawResponse{}, fmt.Errorf("%s: %s", resp.Status, out)
	}
	return rawResponse{Header: resp.Header, body: out}, nil
}

// noopURL serves the bare no-op mcp-go server over streamable HTTP and returns its URL.
func noopURL(b *testing.B) string { return serveFloor(b, noopServer()) }

// chainURL serves the floors chained: the bare mcp-go server whose tool makes one bare NATS
// request/reply (natsFloor) before it answers. Both parts the gateway must use, in one call,
// none of Corral's own work: the ceiling of what a gateway built on them can reach.
func chainURL(b *testing.B, f *farmtest.Farm) string {
	return serveFloor(b, floorServer(natsFloor(b, f)))
}

func serveFloor(b *testing.B, s *mcpserver.MCPServer) string {
	hs := httptest.NewServer(mcpserver.NewStreamableHTTPServer(s, mcpserver.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))))
	b.Cleanup(hs.Close)
	return hs.URL
}
