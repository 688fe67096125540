package mcp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bridgeRPCError is one JSON-RPC error answer the bridge wrote.
type bridgeRPCError struct {
	ID    any `json:"id"`
	Error struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// A gateway's refusal whose body is a JSON-RPC error reaches the stdio client with its code
// and data, under the request's own id (each request's, in a batch): an unsupported
// Mcp-Protocol-Version is -32022 with the versions supported, not -32603. An answer naming
// the request's id is relayed as the gateway wrote it.
func TestBridgePassesTheGatewaysRPCError(t *testing.T) {
	lines := bridgeOut(t, map[string]string{"Mcp-Protocol-Version": "1999-01-01"},
		`{"jsonrpc":"2.0","id":"v-1","method":"tools/list"}`+"\n")
	require.Len(t, lines, 1)
	var one bridgeRPCError
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &one), lines[0])
	assert.Equal(t, "v-1", one.ID)
	assert.Equal(t, -32022, one.Error.Code, lines[0])
	assert.Contains(t, one.Error.Message, `unsupported Mcp-Protocol-Version "1999-01-01"`)
	assert.NotContains(t, one.Error.Message, "refused", "the answer to the request is relayed unchanged")
	var data struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	require.NoError(t, json.Unmarshal(one.Error.Data, &data), lines[0])
	assert.NotEmpty(t, data.Supported)
	assert.Equal(t, "1999-01-01", data.Requested)

	lines = bridgeOut(t, map[string]string{"Mcp-Protocol-Version": "1999-01-01"},
		`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`+"\n")
	require.Len(t, lines, 1)
	var batch []bridgeRPCError
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &batch), lines[0])
	require.Len(t, batch, 2)
	assert.ElementsMatch(t, []any{float64(7), float64(8)}, []any{batch[0].ID, batch[1].ID})
	for _, a := range batch {
		assert.Equal(t, -32022, a.Error.Code, lines[0])
		assert.NotEmpty(t, a.Error.Data)
	}
}

// A refusal whose body is no JSON-RPC answer (403 in plain text from the Origin check) is
// still Internal error, with the gateway's words.
func TestBridgeKeepsInternalErrorForPlainRefusals(t *testing.T) {
	lines := bridgeOut(t, map[string]string{"Origin": "http://evil.example"}, `{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")
	require.Len(t, lines, 1)
	var a bridgeRPCError
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &a), lines[0])
	assert.Equal(t, float64(3), a.ID)
	assert.Equal(t, -32603, a.Error.Code)
	assert.Contains(t, a.Error.Message, "it answered 403 Forbidden: forbidden: Origin header")
	assert.Empty(t, a.Error.Data)
}
