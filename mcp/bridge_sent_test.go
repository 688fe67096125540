package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A transport failure tells the agent whether the call may have run: a gateway that could
// not be reached got nothing, while a connection lost after the request went out (before the
// answer's headers, or in the middle of a JSON answer) may have left the call running.
func TestBridgeTellsAnUnsentRequestFromALostAnswer(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"sleep"}}`
	cut := func(head func(w http.ResponseWriter)) *httptest.Server { return cutServer(t, head) }
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // nothing listens there now: the dial is refused
	for _, c := range []struct {
		name    string
		url     string
		want    []string
		notWant string
	}{
		{"the dial refused", gone.URL, []string{"corral gateway unreachable", "not sent"}, "may have run"},
		{"cut before the answer", cut(func(http.ResponseWriter) {}).URL,
			[]string{"failed after the request was sent", "may have run on the device", "get_latest_task"}, "unreachable"},
		{"cut in a JSON answer", cut(func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(http.StatusOK)
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":"call-1","res`)
			w.(http.Flusher).Flush()
		}).URL, []string{"failed after the request was sent", "may have run on the device", "get_latest_task"}, "unreachable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := bridgeAnswersBy(t, &Bridge{URL: c.url, Client: &http.Client{Transport: &http.Transport{}}}, call)
			var a bridgeRPCError
			require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &a), "want one error answer: %q", out)
			assert.Equal(t, "call-1", a.ID)
			assert.Equal(t, -32603, a.Error.Code)
			for _, w := range c.want {
				assert.Contains(t, a.Error.Message, w)
			}
			assert.NotContains(t, a.Error.Message, c.notWant)
		})
	}
}
