package mcp

// Tests that kill the mutants gremlins found alive in policy.go, auth.go, ratelimit.go and
// origin.go (scripts/mutate.sh policy).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The 401 body is a JSON-RPC error with a code of the range reserved for servers
// (-32000..-32099), which MCP clients show as it is.
func TestAuthUnauthorizedBodyIsJSONRPCError(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{Policy: testPolicy(t)})
	for _, header := range []http.Header{{}, {"Authorization": {"Bearer wrong-token-0123456789"}}} {
		resp, body := h.post(t, header, "")
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, body)
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		var got struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &got), body)
		assert.Equal(t, "2.0", got.JSONRPC)
		assert.Equal(t, "null", string(got.ID))
		assert.Equal(t, -32001, got.Error.Code)
		assert.True(t, strings.HasPrefix(got.Error.Message, "unauthorized: "), got.Error.Message)
	}
}

// A policy's tags have the length acquire_device accepts: 1 to maxTagLen bytes, so every tag
// a caller can ask for can also limit a principal.
func TestPolicyTagLengthLimit(t *testing.T) {
	const secret = "secret-token-0123456789"
	longest := strings.Repeat("t", maxTagLen)
	pol, err := ParsePolicy([]byte("principals:\n  - name: a\n    token: "+secret+"\n    tags: ["+longest+"]"), t.TempDir())
	require.NoError(t, err, "a tag of maxTagLen bytes refused")
	p := pol.authenticate(secret)
	require.NotNil(t, p)
	assert.True(t, p.MayUse([]string{longest}))
	assert.False(t, p.MayUse([]string{"other"}))

	_, err = ParsePolicy([]byte("principals:\n  - name: a\n    token: "+secret+"\n    tags: ["+longest+"t]"), t.TempDir())
	assert.ErrorContains(t, err, "each tag must be 1 to 64 bytes long")
}

// A rate of zero in any unit means no rate limit, as "0" and "off" do (not an error that
// stops the gateway from starting).
func TestParseRateZeroIsOff(t *testing.T) {
	for _, in := range []string{"0/s", "0/m", "0.0", "0/minute"} {
		got, err := ParseRate(in)
		require.NoError(t, err, in)
		assert.Zero(t, got, in)
	}
}

// Burst 0 means max(1, ⌈PerSecond⌉): a device takes a second's worth of calls at once, and
// then one every 1/PerSecond (not: every call refused by an empty bucket).
func TestRateLimitDefaultBurst(t *testing.T) {
	farm := newFakeFarm(t)
	c, _, clock := rateLimitedClient(t, farm, RateLimit{PerSecond: 3})
	tap := func() *mcpgo.CallToolResult {
		return call(t, c, "tap_xy", map[string]any{"serial": "emulator-5554", "x": 0.5, "y": 0.5})
	}
	for range 3 {
		wantOK(t, "tap_xy", tap())
	}
	wantError(t, tap(), "rate limited: device emulator-5554 allows 3 calls/s (burst 3) through this gateway; retry after 334 ms")
	clock.Add(334 * time.Millisecond)
	wantOK(t, "tap_xy", tap())
	assert.Len(t, farm.Runs(), 4)

	for rate, burst := range map[float64]int{0.5: 1, 2.5: 3, 50: 50} {
		l := newLimiter(RateLimit{PerSecond: rate})
		require.NotNil(t, l)
		assert.Equal(t, burst, l.rl.Burst, "burst of %v/s", rate)
	}
	assert.Equal(t, 7, newLimiter(RateLimit{PerSecond: 3, Burst: 7}).rl.Burst, "a burst given was changed")
}

// When the limiter holds maxBuckets devices, a new device makes it forget the idle devices
// whose bucket is full again, and only them: a device that used its tokens or has a call in
// flight keeps its bucket (forgetting it would reset its limits), and the limiter never holds
// more than maxBuckets.
func TestLimiterForgetsOnlyIdleFullBuckets(t *testing.T) {
	l := newLimiter(RateLimit{PerSecond: 1, Burst: 2, MaxWaiting: 1})
	clock := &fakeClock{now: time.Unix(1000, 0)}
	l.now = clock.Now
	admit := func(serial string) (func(), string) {
		done, _, reason := l.admit(serial, "")
		return done, reason
	}
	buckets := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.devices)
	}

	for range 2 { // hot: both tokens used
		done, reason := admit("hot")
		require.NotNil(t, done, reason)
		done()
	}
	busyDone, reason := admit("busy") // busy: a call in flight
	require.NotNil(t, busyDone, reason)
	defer busyDone()
	for i := range maxBuckets - 2 { // idle: one token used each
		done, reason := admit(fmt.Sprintf("idle-%d", i))
		require.NotNil(t, done, reason)
		done()
	}
	require.Equal(t, maxBuckets, buckets(), "a bucket was forgotten before the limiter was full")

	// A second later the idle buckets are full again, hot's is not (one token of two).
	clock.Add(time.Second)
	done, reason := admit("new")
	require.NotNil(t, done, reason)
	done()
	assert.Equal(t, 3, buckets(), "want hot, busy and new kept, every idle full bucket forgotten")

	done, reason = admit("hot")
	require.NotNil(t, done, reason)
	done()
	_, reason = admit("hot")
	assert.Equal(t, reasonRate, reason, "hot's bucket was forgotten: its limit started over")
	_, reason = admit("busy")
	assert.Equal(t, reasonQueue, reason, "busy's bucket was forgotten with a call in flight")
}

// A token given in clear has minTokenLen to maxTokenLen bytes, both included, in the policy
// (token) and in a token file alike; one byte fewer or more is refused without quoting it.
func TestPolicyTokenLengthBounds(t *testing.T) {
	dir := t.TempDir()
	policy := func(token string) string {
		return "principals:\n  - name: a\n    token: " + token + "\n"
	}
	fromFile := func(token string) string {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte(token+"\n"), 0o600))
		return "principals:\n  - name: a\n    token_file: token\n"
	}
	for _, give := range []func(string) string{policy, fromFile} {
		for _, n := range []int{minTokenLen, maxTokenLen} {
			token := strings.Repeat("k", n)
			pol, err := ParsePolicy([]byte(give(token)), dir)
			require.NoError(t, err, "a token of %d bytes refused", n)
			assert.NotNil(t, pol.authenticate(token), "the token of %d bytes does not authenticate", n)
		}
		for n, says := range map[int]string{minTokenLen - 1: "15 bytes long; use at least 16", maxTokenLen + 1: "4097 bytes long; at most 4096"} {
			_, err := ParsePolicy([]byte(give(strings.Repeat("k", n))), dir)
			assert.ErrorContains(t, err, says)
			if err != nil {
				assert.NotContains(t, err.Error(), "kkkkkkkk", "the error quotes the token")
			}
		}
	}
}
