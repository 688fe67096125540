package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// The gateway's own costs of one call, outside mcp-go: what every tool call pays however
// small its answer. go test -run x -bench 'ToolResult|CallStream' -benchmem ./mcp

var resultSink *mcpgo.CallToolResult

// BenchmarkToolResult turns a node's answer into an MCP result: structured (most tools), text.
func BenchmarkToolResult(b *testing.B) {
	g := &Gateway{}
	ctx, _ := withCallSlot(context.Background(), "tap")
	for _, tc := range []struct {
		name string
		res  broker.TaskResult
	}{
		{"structured", broker.TaskResult{Tool: "tap", Outcome: broker.OutcomeSucceeded, Data: []byte(`{"message":"Tapped (540, 1200)."}`)}},
		{"text", broker.TaskResult{Tool: "tap", Outcome: broker.OutcomeSucceeded, Text: "Tapped (540, 1200)."}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resultSink = g.toolResult(ctx, tc.res)
			}
		})
	}
}

// flushDiscard is a response that keeps nothing: only its header, cleared for each request.
type flushDiscard struct{ h http.Header }

func (f *flushDiscard) Header() http.Header         { return f.h }
func (f *flushDiscard) Write(p []byte) (int, error) { return len(p), nil }
func (f *flushDiscard) WriteHeader(int)             {}
func (f *flushDiscard) Flush()                      {}

// BenchmarkCallStreamPOST is callStreams' cost for a POST that takes a stream (mcp-go's
// client's always do) and is answered with JSON, without a notification: most calls.
func BenchmarkCallStreamPOST(b *testing.B) {
	g := &Gateway{}
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	h := g.callStreams(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(answer)
	}))
	r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(""))
	r.Header.Set("Accept", "application/json, text/event-stream")
	w := &flushDiscard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, r)
	}
}

// BenchmarkErrorResult is a refusal's result; BenchmarkStructuredResult a gateway tool's.
func BenchmarkErrorResult(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		resultSink = errorResult("release_device refused (stale_lease): no lease held now has this handle")
	}
}

func BenchmarkStructuredResult(b *testing.B) {
	ctx, _ := withCallSlot(context.Background(), "list_leases")
	raw := []byte(`{"message":"Released device n1-p1."}`)
	b.ReportAllocs()
	for b.Loop() {
		resultSink = structuredJSON(ctx, raw)
	}
}
