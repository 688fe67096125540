package mcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// QA: with its sessions' entries bounded (--sessions-per-principal), a principal still grew the
// sessions' bucket through keys outside the bound: an ended mark per DELETE, a selection per
// client name it made up without a session, latest-task keys per session. Each is keyed under
// the principal now and bounded: alice (bound 2) ends, names and runs past it, her keys stop at
// the bound, and bob's, written before all of hers, still serve him.
func TestPrincipalKeysOutsideSessionsAreBounded(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 8, Quiet: true})
	pol, err := mcp.ParsePolicy([]byte(sessionsPolicy), t.TempDir())
	require.NoError(t, err)
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()),
		mcp.Options{Policy: pol, Limits: mcp.Limits{SessionsPerPrincipal: 2}})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	kv := sessionsKV(t, f.URL)
	const more = 5 // alice's, past her bound of 2

	t.Run("ended marks", func(t *testing.T) {
		bob := tokenSessionClient(t, hs.URL, "bob-agent", leaseBobToken)
		bobID := bob.GetSessionId()
		endSession(t, hs.URL, leaseBobToken, bobID)
		var last string
		for range more {
			last = tokenSessionClient(t, hs.URL, "alice-agent", leaseAliceToken).GetSessionId()
			endSession(t, hs.URL, leaseAliceToken, last)
		}
		client := f.Gateway().Client
		for _, s := range []struct{ principal, id string }{{"bob", bobID}, {"alice", last}} {
			ended, err := client.SessionEnded(t.Context(), broker.UnderPrincipal(s.principal, s.id))
			require.NoError(t, err)
			assert.True(t, ended, "%s's session not marked ended", s.principal)
		}
		assert.Equal(t, 2, keysUnder(t, kv, "alice", "e.*"), "alice's ended marks")
		assert.Equal(t, 1, keysUnder(t, kv, "bob", "e.*"), "bob's ended marks")
	})

	t.Run("sessionless selections", func(t *testing.T) {
		bob := tokenClient(t, hs.URL, "bob-runner", leaseBobToken)
		farmtest.MustCall(t, bob, "select_device", map[string]any{"serial": "n1-p6"})
		var alice *client.Client
		for i := range more {
			alice = tokenClient(t, hs.URL, fmt.Sprintf("alice-runner-%d", i), leaseAliceToken)
			farmtest.MustCall(t, alice, "select_device", map[string]any{"serial": fmt.Sprintf("n1-p%d", i+1)})
		}
		assert.Equal(t, 2+1, countKeys(t, kv, ">", "selected_"), "sessionless selections, alice's and bob's")
		assert.Equal(t, 1, countKeys(t, kv, broker.UnderPrincipal("bob", "*"), "selected_"), "bob's selection")
		tap := map[string]any{"serial": "n1-p6", "x": 0.5, "y": 0.5}
		farmtest.MustCall(t, bob, "tap_xy", tap) // under his selection's lease, not refused busy by it
		tap["serial"] = "n1-p5"
		farmtest.MustCall(t, alice, "tap_xy", tap)
	})

	t.Run("latest tasks", func(t *testing.T) {
		bob := tokenSessionClient(t, hs.URL, "bob-agent", leaseBobToken)
		farmtest.MustCall(t, bob, "tap_xy", map[string]any{"serial": "n1-p8", "x": 0.5, "y": 0.5})
		latest := map[string]any{"anyTool": true}
		bobTask := taskID(t, farmtest.MustCall(t, bob, "get_latest_task", latest))
		for range 2 * more { // two keys each: its latest task, and on n1-p7
			c := tokenSessionClient(t, hs.URL, "alice-agent", leaseAliceToken)
			farmtest.MustCall(t, c, "tap_xy", map[string]any{"serial": "n1-p7", "x": 0.5, "y": 0.5})
		}
		keep := 4 * 2
		require.Eventually(t, func() bool { return keysUnder(t, kv, "alice", "l.*") == keep },
			20*time.Second, 20*time.Millisecond, "alice keeps more than %d latest tasks", keep)
		res := farmtest.MustCall(t, bob, "get_latest_task", latest)
		assert.Equal(t, bobTask, taskID(t, res), "bob's latest task")
	})
}

// endSession ends session id of principal token with DELETE, as a client does.
func endSession(t *testing.T, base, token, id string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodDelete, base+"/mcp", http.NoBody)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_ = res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "DELETE of a session")
}

// sessionsKV opens the sessions' bucket on its own connection.
func sessionsKV(t *testing.T, url string) jetstream.KeyValue {
	t.Helper()
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	kv, err := js.KeyValue(t.Context(), broker.SessionBucket)
	require.NoError(t, err)
	return kv
}

// keysUnder counts principal's keys in kv matching pattern after its prefix.
func keysUnder(t *testing.T, kv jetstream.KeyValue, principal, pattern string) int {
	t.Helper()
	return countKeys(t, kv, broker.UnderPrincipal(principal, pattern), "")
}

// countKeys counts the keys in kv matching pattern that hold part.
func countKeys(t *testing.T, kv jetstream.KeyValue, pattern, part string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	keys, err := kv.ListKeysFiltered(ctx, pattern)
	require.NoError(t, err)
	n := 0
	for k := range keys.Keys() {
		if strings.Contains(k, part) {
			n++
		}
	}
	return n
}

// taskID is the task id a tool's result names.
func taskID(t *testing.T, res *mcpgo.CallToolResult) string {
	t.Helper()
	var out mcp.TaskRecordResult
	farmtest.Structured(t, res, &out)
	require.NotEmpty(t, out.TaskID, "no task id in %s", farmtest.Text(res))
	return out.TaskID
}

// Ended marks and latest tasks under the session alone (Corral before principal keys, or its
// gateways during a roll) still count: such a mark ends the session on this gateway, and such
// a latest task is get_latest_task's when the session has none under its principal.
func TestEndedMarksAndLatestTasksOfOlderGatewaysAreStillRead(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	client := f.Gateway().Client
	ran := f.ClientWithProtocol("ran", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	farmtest.MustCall(t, ran, "tap_xy", map[string]any{"serial": "n1-p1", "x": 0.5, "y": 0.5})
	latest := map[string]any{"anyTool": true}
	task := taskID(t, farmtest.MustCall(t, ran, "get_latest_task", latest))

	older := f.ClientWithProtocol("older", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
	require.NoError(t, client.SetLatestTask(t.Context(), "session:"+older.GetSessionId(), task))
	client.Flush(t.Context())
	assert.Equal(t, task, taskID(t, farmtest.MustCall(t, older, "get_latest_task", latest)), "the older gateway's latest task")

	// A session live on this gateway learns of it from the watch, another gateway when it
	// takes the session up.
	url := f.Gateway().MCPURL
	id := openSession(t, url)
	require.NoError(t, client.EndSession(t.Context(), id)) // under "ended." and its id
	for _, url := range []string{url, anotherGateway(t, f)} {
		require.Eventually(t, func() bool {
			status, _, body := send(t, url, http.MethodPost, id, toolsList)
			return status == http.StatusNotFound && strings.Contains(body, endedWords)
		}, 10*time.Second, 20*time.Millisecond, "a session an older gateway marked ended still serves on %s", url)
	}
}
