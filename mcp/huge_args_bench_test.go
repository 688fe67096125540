package mcp

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkHugeJunkArguments is the front door's cost of a 3.9 MB tools/call whose arguments
// hold a 1.3M-element array, and of the same junk in tools/list: QA measured 0.94-1.94 s and
// 0.28 s of CPU a request, most of it (-cpuprofile) mcp-go decoding the arguments into []any
// and the tool decoding them again. maxArrayElements now refuses both before any decode.
func BenchmarkHugeJunkArguments(b *testing.B) {
	junk := "[" + strings.Repeat("1,", 1_300_000) + "1]"
	g := New(newFakeFarm(b), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{})
	b.Cleanup(g.Close)
	h := g.Handler()
	session := serve(h, http.MethodPost, initializeBody, nil).Header().Get("Mcp-Session-Id")
	for _, c := range []struct{ name, body string }{
		{"tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_leases","arguments":{"junk":` + junk + `}}}`},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"junk":` + junk + `}}`},
	} {
		b.Run(strings.ReplaceAll(c.name, "/", "_"), func(b *testing.B) {
			for b.Loop() {
				rec := serve(h, http.MethodPost, c.body, map[string]string{"Mcp-Session-Id": session})
				if rec.Code != http.StatusBadRequest {
					b.Fatalf("%d %s", rec.Code, rec.Body.String()[:min(200, rec.Body.Len())])
				}
			}
		})
	}
}
