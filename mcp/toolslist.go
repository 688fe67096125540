package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// maxListRequest bounds the body the tools/list fast path reads; anything longer is not a
// plain tools/list and goes to mcp-go.
const maxListRequest = 4 << 10

// listCache answers plain tools/list requests of session-based protocol revisions from bytes
// mcp-go made once per principal. mcp-go encodes the whole catalog on every list (each tool
// through a map, each schema compacted again): about 2 ms of CPU for 45 KB, where the answer
// never changes while the gateway runs. Everything else, and any request the fast path is not
// sure about, goes to mcp-go untouched.
type listCache struct {
	g       *Gateway
	next    http.Handler
	ids     mcpserver.StatelessGeneratingSessionIdManager // mcp-go's default: checks the format
	results sync.Map                                      // principal name → json.RawMessage
}

func (g *Gateway) cacheToolsList(next http.Handler) http.Handler {
	return &listCache{g: g, next: next}
}

// listRequest is what a plain tools/list carries.
type listRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  *struct {
		Cursor string `json:"cursor"`
	} `json:"params"`
}

func (c *listCache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	session := r.Header.Get("Mcp-Session-Id")
	if r.Method != http.MethodPost || session == "" || r.ContentLength < 0 || r.ContentLength > maxListRequest ||
		!strings.Contains(r.Header.Get("Accept"), "application/json") {
		c.next.ServeHTTP(w, r)
		return
	}
	body, err := bodyOf(r), error(nil) // read once by bufferBody: no copy on every call
	if body == nil {
		body, err = io.ReadAll(io.LimitReader(r.Body, maxListRequest+1))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if err != nil || !bytes.Contains(body, []byte(`"tools/list"`)) {
		c.next.ServeHTTP(w, r)
		return
	}
	var req listRequest
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || req.Method != string(mcpgo.MethodToolsList) ||
		len(req.ID) == 0 || bytes.Equal(req.ID, []byte("null")) || (req.Params != nil && req.Params.Cursor != "") {
		c.next.ServeHTTP(w, r)
		return
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && mcpgo.IsModernProtocol(v) {
		c.next.ServeHTTP(w, r)
		return
	}
	if terminated, err := c.ids.Validate(session); err != nil || terminated {
		c.next.ServeHTTP(w, r) // mcp-go says what is wrong with it
		return
	}
	result, ok := c.result(r)
	if !ok {
		c.next.ServeHTTP(w, r)
		return
	}
	var out bytes.Buffer
	out.Grow(len(result) + len(req.ID) + 40)
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(req.ID)
	out.WriteString(`,"result":`)
	out.Write(result)
	out.WriteString("}\n")
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out.Bytes())
}

// result returns the tools/list result for the caller's principal, asking mcp-go for it the
// first time, so that it is what mcp-go would answer: the same tools, order and encoding.
func (c *listCache) result(r *http.Request) (json.RawMessage, bool) {
	key := ""
	if p := c.g.principal(r.Context()); p != nil {
		key = p.Name
	}
	if v, ok := c.results.Load(key); ok {
		return v.(json.RawMessage), true
	}
	msg := c.g.server.HandleMessage(r.Context(), json.RawMessage(`{"jsonrpc":"2.0","id":0,"method":"tools/list"}`))
	resp, ok := msg.(mcpgo.JSONRPCResponse)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(resp.Result)
	if err != nil {
		return nil, false
	}
	c.results.Store(key, json.RawMessage(b))
	return b, true
}
