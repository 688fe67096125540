package bench

import (
	"bytes"
	"fmt"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/farmtest"
)

// BenchmarkToolsList times tools/list of the whole catalog (target: p50 ≤ 1 ms from the
// gateway), by a minimal HTTP client (raw-http: the server side alone) and by mcp-go's client
// over streamable HTTP (mcp-http). list-KB is the size of the answer.
func BenchmarkToolsList(b *testing.B) {
	f := farmtest.Start(b, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	b.Run("layer=raw-http", func(b *testing.B) {
		r := newRawCaller(b, f.Gateway().MCPURL, nopTool, nil)
		r.body = []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		var size int
		sequential(b, f, func() error {
			resp, err := r.post(r.body)
			if err != nil {
				return err
			}
			// Checked, not decoded: decoding 45 KB of schemas costs the client more than the
			// server spends answering.
			if !bytes.HasPrefix(resp.body, []byte(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{`)) {
				return fmt.Errorf("tools/list answered %.200q", resp.body)
			}
			size = len(resp.body)
			return nil
		})
		b.ReportMetric(float64(size)/1000, "list-KB")
	})
	b.Run("layer=mcp-http", func(b *testing.B) {
		c := httpClient(b, f, "bench-list")
		sequential(b, f, func() error {
			res, err := c.ListTools(b.Context(), mcpgo.ListToolsRequest{})
			if err == nil && len(res.Tools) == 0 {
				err = fmt.Errorf("tools/list: no tools")
			}
			return err
		})
	})
}
