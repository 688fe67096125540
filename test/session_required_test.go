package test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A client of a revision with sessions that skipped initialize (no Mcp-Session-Id) is told to
// send initialize first, not "Invalid session ID"; a bogus id keeps its own answer, and the
// revision without sessions still calls without any id.
func TestRequestWithoutSessionIsToldToInitialize(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	post := func(body string, headers map[string]string) (int, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.Gateway().MCPURL, bytes.NewReader([]byte(body)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	list := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`

	status, body := post(list, map[string]string{mcpgo.HeaderProtocolVersion: mcpgo.ProtocolVersion20250618})
	assert.Equal(t, http.StatusBadRequest, status, body)
	contains(t, body, `"id":7`, "no Mcp-Session-Id", "send initialize first")
	status, body = post(list, nil) // no version header: 2025-03-26
	assert.Equal(t, http.StatusBadRequest, status, body)
	contains(t, body, "send initialize first")

	status, body = post(list, map[string]string{mcpgo.HeaderSessionID: "mcp-session-00000000-0000-4000-8000-000000000000"})
	assert.Equal(t, http.StatusNotFound, status, body)
	contains(t, body, "was not issued")

	modern := `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"` + mcpgo.MetaKeyProtocolVersion + `":"` + mcpgo.ProtocolVersion20260728 +
		`","` + mcpgo.MetaKeyClientInfo + `":{"name":"t","version":"1"},"` + mcpgo.MetaKeyClientCapabilities + `":{}}}}`
	status, body = post(modern, map[string]string{mcpgo.HeaderProtocolVersion: mcpgo.ProtocolVersion20260728, mcpgo.HeaderMethod: "tools/list"})
	assert.Equal(t, http.StatusOK, status, body)
	contains(t, body, "list_available_devices")
}
