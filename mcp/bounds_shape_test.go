package mcp

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
)

// A body nested past maxBodyDepth, or with an array past maxArrayElements, is refused before
// any decode says so: QA's 3.9 MB tools/call of 1.3M ones cost 0.94-1.94 s of CPU, and JSON
// nested 10001 deep got mcp-go's "request body is not valid json".
func TestBodyShapeIsBoundedBeforeDecoding(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{})
	h := g.Handler()
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_leases","arguments":{"junk":` + args + `}}}`
	}
	for _, c := range []struct{ name, body, want string }{
		{"deep", call(strings.Repeat("[", 10001) + strings.Repeat("]", 10001)), "more than 128 levels deep"},
		{"long", call("[" + strings.Repeat("1,", 1_300_000) + "1]"), "more than 10000 elements"},
	} {
		rec := serve(h, http.MethodPost, c.body, nil)
		assert.Equal(t, http.StatusBadRequest, rec.Code, "%s: %s", c.name, rec.Body.String()[:min(300, rec.Body.Len())])
		assert.Contains(t, rec.Body.String(), c.want, c.name)
	}

	// The bounds themselves, and brackets and commas in strings, which count for nothing.
	elements := func(n int) string { return "[" + strings.Repeat("1,", n-1) + "1]" }
	assert.Empty(t, shapeProblem([]byte(elements(maxArrayElements))))
	assert.NotEmpty(t, shapeProblem([]byte(elements(maxArrayElements+1))))
	nest := func(n int) string { return strings.Repeat(`{"a":[`, n/2) + strings.Repeat("]}", n/2) }
	assert.Empty(t, shapeProblem([]byte(nest(maxBodyDepth))))
	assert.NotEmpty(t, shapeProblem([]byte(nest(maxBodyDepth+2))))
	assert.Empty(t, shapeProblem([]byte(`["`+strings.Repeat(`[,\"`, 20000)+`"]`)))
}
