package mcp_test

import (
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// The by-selector tools use HttpRunner's general options index and max_retry_times
// (docs/web.md), so they declare them: an agent finds them in tools/list and in the refusal of
// a misspelt argument. QA: `{"selector":"button","index":1}` worked, yet tap_by_selector's
// schema and its "takes:" list left index out.
func TestSelectorToolsListIndexAndRetries(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	c := f.Client("hrp")
	listed, err := c.ListTools(t.Context(), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	for _, name := range []string{"tap_by_selector", "hover_by_selector", "secondary_click_by_selector"} {
		var schema map[string]any
		for _, tl := range listed.Tools {
			if tl.Name == name {
				schema = tl.InputSchema.Properties
			}
		}
		require.NotNil(t, schema, "%s is not listed", name)
		assert.Contains(t, schema, "index", name)
		assert.Contains(t, schema, "max_retry_times", name)

		res := farmtest.Call(t, c, name, map[string]any{"serial": "n1-p1", "selector": "button", "indx": 1})
		require.True(t, res.IsError, farmtest.Text(res))
		assert.Contains(t, farmtest.Text(res), `unknown argument "indx"`)
		assert.Contains(t, farmtest.Text(res), "index, lease, max_retry_times", name)
	}
}
