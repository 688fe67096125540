package mcp

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A call of a catalog tool that the gateway's --tools leaves out is refused as such and counted
// in corral_gateway_denied_total{reason="profile"}, read from /metrics: it was refused but
// counted nowhere. A name no gateway serves (a typo, tap_xyz) was counted nowhere either: it
// counts apart, as reason="unknown_tool", present from 0 too.
func TestCallOutsideTheProfileIsCounted(t *testing.T) {
	served, err := SelectTools("phone-agent")
	require.NoError(t, err)
	srv, _ := metricsGateway(t, Options{Tools: served})
	require.Equal(t, "0", scrapeDenied(t, srv.URL, "profile"), "the reason shows before any refusal")
	require.Equal(t, "0", scrapeDenied(t, srv.URL, "unknown_tool"), "the reason shows before any refusal")
	c := sessionClient(t, srv, "")
	call := func(name string) error {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		req := mcpgo.CallToolRequest{}
		req.Params.Name = name
		req.Params.Arguments = map[string]any{"x": 0.5, "y": 0.5}
		_, err := c.CallTool(ctx, req)
		return err
	}
	for range 2 {
		err := call("tap_xy")
		require.Error(t, err)
		assert.Contains(t, err.Error(), `tool "tap_xy" is not served by this gateway: its --tools leaves it out`)
	}
	err = call("tap_xyz")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `tool "tap_xyz" not found`)
	assert.Equal(t, "2", scrapeDenied(t, srv.URL, "profile"), "a typo is not a tool outside the profile")
	assert.Equal(t, "1", scrapeDenied(t, srv.URL, "unknown_tool"))
}

// scrapeDenied reads corral_gateway_denied_total{reason} from base's /metrics ("" if absent).
func scrapeDenied(t *testing.T, base, reason string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if v, ok := strings.CutPrefix(lines.Text(), `corral_gateway_denied_total{reason="`+reason+`"} `); ok {
			return v
		}
	}
	require.NoError(t, lines.Err())
	return ""
}
