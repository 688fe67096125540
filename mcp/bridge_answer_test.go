package mcp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// modernLine is a request of method in protocol revision 2026-07-28 (its version in _meta,
// no session), with id and params' other members (raw JSON, "" for none).
func modernLine(id, method, rest string) string {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"agent","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	if rest != "" {
		rest = "," + rest
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":{` + meta + rest + `}}`
}

// hintedBridge runs a bridge to url with corral mcp-stdio's hint for a 404 on the lines of in,
// and returns the messages it wrote by id, and its log.
func hintedBridge(t *testing.T, url, in string) (map[string]bridgeRPCError, string) {
	t.Helper()
	var logs logtest.Buffer
	b := &Bridge{URL: url, Log: slog.New(slog.NewTextHandler(&logs, nil)), Hint: func(status int) string {
		if status == http.StatusNotFound {
			return "is --gateway the gateway's MCP endpoint?"
		}
		return ""
	}}
	var out bytes.Buffer
	require.NoError(t, b.Run(t.Context(), strings.NewReader(in), &out))
	answers := map[string]bridgeRPCError{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var a bridgeRPCError
		require.NoError(t, json.Unmarshal([]byte(line), &a), line)
		id, _ := json.Marshal(a.ID)
		answers[string(id)] = a
	}
	return answers, logs.String()
}

// In revision 2026-07-28 a JSON-RPC error comes with an HTTP status of its own (method not
// found: 404, invalid params: 400). The bridge relays it as the gateway wrote it, as it does
// in 2025-06-18, not as the gateway refusing the request with a hint about a wrong URL, and
// logs no failure; a plain 404 (a wrong --gateway) is still a refusal with the hint.
func TestBridgeRelaysErrorAnswersOf20260728(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	in := modernLine("1", "resources/list", "") + "\n" +
		modernLine("2", "prompts/list", "") + "\n" +
		modernLine(`"t-3"`, "tools/call", `"name":"no_such_tool","arguments":{}`) + "\n"
	answers, logs := hintedBridge(t, h.srv.URL+"/mcp", in)
	require.Len(t, answers, 3, "%v", answers)
	for _, id := range []string{"1", "2"} {
		a := answers[id]
		assert.Equal(t, -32601, a.Error.Code, "%s: %+v", id, a)
		assert.Contains(t, a.Error.Message, "not supported", id)
		assert.NotContains(t, a.Error.Message, "refused", id)
		assert.NotContains(t, a.Error.Message, "--gateway", id)
	}
	tool := answers[`"t-3"`]
	assert.Contains(t, tool.Error.Message, "no_such_tool")
	assert.NotContains(t, tool.Error.Message, "refused")
	assert.NotContains(t, tool.Error.Message, "400 Bad Request")
	assert.NotContains(t, logs, "relay to gateway failed")

	answers, logs = hintedBridge(t, h.srv.URL+"/nope", modernLine("4", "tools/list", "")+"\n")
	a := answers["4"]
	assert.Equal(t, -32603, a.Error.Code, "%+v", a)
	assert.Contains(t, a.Error.Message, "the corral gateway refused the request: it answered 404 Not Found")
	assert.Contains(t, a.Error.Message, "is --gateway the gateway's MCP endpoint?")
	assert.Contains(t, logs, "relay to gateway failed")
}
