package mcp

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A body that cannot be read is told apart from one that is slow: malformed chunks are a 400
// that says so (bad_body), a body that stalls past ReadTimeout a 408 (slow_body). Both were 408
// "not received within 30s", the malformed one answered at once.
func TestUnreadableBodyIs400AndSlowBodyIs408(t *testing.T) {
	hg := startHTTPGateway(t, newFakeFarm(t), Options{Limits: Limits{ReadTimeout: 300 * time.Millisecond}})
	addr := strings.TrimPrefix(hg.srv.URL, "http://")
	const head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"

	// send writes raw bytes on a new connection and reads the answer.
	send := func(raw string) (int, string) {
		t.Helper()
		conn, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer conn.Close()
		_, err = io.WriteString(conn, raw)
		require.NoError(t, err)
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute)))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	status, body := send(head + "ZZ\r\n{}\r\n0\r\n\r\n")
	assert.Equal(t, http.StatusBadRequest, status, body)
	assert.Contains(t, body, "the request body's chunked encoding is malformed")
	assert.Contains(t, body, `"code":-32600`)
	assert.Equal(t, float64(1), hg.denied(reasonBadBody))
	assert.Equal(t, float64(0), hg.denied(reasonSlowBody))

	status, body = send(head + "40\r\n{\"jsonrpc\":") // the rest never comes
	assert.Equal(t, http.StatusRequestTimeout, status, body)
	assert.Contains(t, body, "request body not received within 300ms")
	assert.Equal(t, float64(1), hg.denied(reasonSlowBody))
	assert.Equal(t, float64(1), hg.denied(reasonBadBody))
}
