package mcp

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkMessageShapeFastPath is what messageShape costs a call it lets by undecoded, the
// common case: a tools/call of an earlier revision (no _meta), and one of 2026-07-28, whose
// _meta names its revision, as the header does, in every request.
func BenchmarkMessageShapeFastPath(b *testing.B) {
	for _, c := range []struct{ name, header, body string }{
		{"legacy", "2025-03-26", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"tap_xy","arguments":{"device":"emulator-5554","x":0.5,"y":0.5}}}`},
		{"meta", "2026-07-28", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}},` +
			`"name":"tap_xy","arguments":{"device":"emulator-5554","x":0.5,"y":0.5}}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			passed := 0
			h := (&Gateway{known: map[string]bool{"tap_xy": true}}).messageShape(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { passed++ }))
			r := withBody(httptest.NewRequest(http.MethodPost, "/mcp", nil), []byte(c.body))
			r.Header.Set("Mcp-Protocol-Version", c.header)
			w := httptest.NewRecorder()
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
			if passed == 0 || w.Code != http.StatusOK {
				b.Fatalf("the request was not let by: %d %s", w.Code, w.Body)
			}
		})
	}
}
