package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// maxBatch bounds the messages of one JSON-RPC batch: each runs as a request of its own.
const maxBatch = 64

// batchesRemoved is the first protocol revision without JSON-RPC batches.
const batchesRemoved = "2025-06-18"

// batches answers JSON-RPC batches, which mcp-go does not parse ("request body is not valid
// json"). Revision 2025-03-26 requires servers to receive them (and 2024-11-05 allows them):
// each message is served in order as a POST of its own, and the answers come back as one
// array. From 2025-06-18 on a POST carries one message: a batch gets an Invalid Request
// error saying so. A client that sends no Mcp-Protocol-Version header speaks 2025-03-26 (the
// transport's rule). Everything that is not a batch goes on untouched.
func (g *Gateway) batches(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := bodyOf(r)
		if r.Method != http.MethodPost || !isBatch(body) {
			next.ServeHTTP(w, r)
			return
		}
		if v := r.Header.Get(mcpgo.HeaderProtocolVersion); v >= batchesRemoved {
			writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, fmt.Sprintf(
				"JSON-RPC batches were removed from MCP in protocol revision %s, and this request speaks %s (Mcp-Protocol-Version): send one message per POST", batchesRemoved, v))
			return
		}
		var msgs []json.RawMessage
		if err := json.Unmarshal(body, &msgs); err != nil {
			writeRPCError(w, http.StatusBadRequest, nil, codeParseError, "the batch is not valid JSON: "+err.Error())
			return
		}
		switch {
		case len(msgs) == 0:
			writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, "empty batch: a batch holds at least one message")
			return
		case len(msgs) > maxBatch:
			writeRPCError(w, http.StatusBadRequest, nil, codeInvalidRequest, fmt.Sprintf(
				"a batch of %d messages; this gateway serves at most %d at once: split it", len(msgs), maxBatch))
			return
		}
		var answers []json.RawMessage
		for _, m := range msgs {
			if a := g.batchMessage(next, r, m); a != nil {
				answers = append(answers, a)
			}
		}
		if len(answers) == 0 { // notifications and responses only
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		out, _ := json.Marshal(answers)
		_, _ = w.Write(append(out, '\n'))
	})
}

// isBatch reports whether a body is a JSON array.
func isBatch(body []byte) bool {
	b := bytes.TrimLeft(body, " \t\r\n")
	return len(b) > 0 && b[0] == '['
}

// batchMessage serves one message of a batch and returns its answer: nil for a notification
// or response, a JSON-RPC error for what the transport refused.
func (g *Gateway) batchMessage(next http.Handler, r *http.Request, m json.RawMessage) json.RawMessage {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(m, &head) != nil {
		return rpcError(nil, codeInvalidRequest, "each message of a batch must be a JSON-RPC object")
	}
	if head.Method == string(mcpgo.MethodInitialize) {
		return rpcError(head.ID, codeInvalidRequest, "initialize must not be part of a JSON-RPC batch: send it alone")
	}
	one := r.Clone(r.Context())
	one.Header.Set("Accept", "application/json") // one JSON answer, not a stream, per message
	rec := &bufferResponse{header: http.Header{}}
	next.ServeHTTP(rec, withBody(one, m))
	switch {
	case rec.status == http.StatusAccepted || (rec.status == 0 && rec.body.Len() == 0):
		return nil
	case strings.HasPrefix(rec.header.Get("Content-Type"), "application/json") && json.Valid(rec.body.Bytes()):
		return bytes.TrimSpace(rec.body.Bytes())
	}
	return rpcError(head.ID, codeInvalidRequest, strings.TrimSpace(rec.body.String()))
}

// rpcError encodes a JSON-RPC error answer.
func rpcError(id json.RawMessage, code int, msg string) json.RawMessage {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return b
}

// bufferResponse keeps one message's answer; without Flush, mcp-go answers with JSON.
type bufferResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferResponse) Header() http.Header { return b.header }
func (b *bufferResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
