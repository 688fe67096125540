package mcp

import (
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// After a DELETE, the session's id gets 404 in the transport's words on every method (it
// worked on: ids carry their own proof), counted and logged as a session refusal without the
// id; mcp-go's state of it is freed, and a new initialize works.
func TestDeletedSessionIsRefusedHere(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{})
	session := h.initialize(t)
	withSession := map[string]string{"Mcp-Session-Id": session}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	require.Equal(t, http.StatusOK, h.raw(t, http.MethodPost, list, withSession).status)

	del := h.raw(t, http.MethodDelete, "", withSession)
	require.Equal(t, http.StatusOK, del.status, del.body)
	assert.Error(t, h.g.server.SendNotificationToSpecificClient(session, "notifications/message", nil), "mcp-go still has the session")
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		a := h.raw(t, method, list, withSession)
		assert.Equal(t, http.StatusNotFound, a.status, "%s: %s", method, a.body)
		code, msg := rpcErr(t, a.body)
		assert.Equal(t, codeSession, code)
		assert.Equal(t, "session ended by DELETE: send initialize without Mcp-Session-Id to open a new session", msg)
	}
	assert.Equal(t, float64(3), h.denied(reasonSession))
	assert.Contains(t, h.logs.String(), "session ended by DELETE")
	assert.NotContains(t, h.logs.String(), session)
	assert.Equal(t, 0, h.g.sessions.count())

	fresh := h.initialize(t)
	assert.Equal(t, http.StatusOK, h.raw(t, http.MethodPost, list, map[string]string{"Mcp-Session-Id": fresh}).status)
}

// A session the gateway forgets (idle, or past a principal's cap) is not ended: its id works
// on, taken up again. And under a policy mcp-go's state of it is freed too: the gateway's own
// DELETE carries no principal, and was refused as "not found" (500), leaving that state kept.
func TestForgottenSessionIsFreedNotEnded(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()),
		Options{Policy: testPolicy(t), Limits: Limits{MaxSessions: 1, SessionTTL: time.Minute}})
	h := g.Handler()
	bearer := map[string]string{"Authorization": "Bearer " + labToken}
	first := serve(h, http.MethodPost, initializeBody, bearer).Header().Get("Mcp-Session-Id")
	require.NotEmpty(t, first)
	require.NotEmpty(t, serve(h, http.MethodPost, initializeBody, bearer).Header().Get("Mcp-Session-Id")) // forgets first
	assert.Error(t, g.server.SendNotificationToSpecificClient(first, "notifications/message", nil), "mcp-go kept a forgotten session")

	bearer["Mcp-Session-Id"] = first
	rec := serve(h, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, bearer)
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}
