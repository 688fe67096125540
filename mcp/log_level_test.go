package mcp_test

import (
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// QA: a client that set logging/setLevel error still got sleep's progress as info-level
// notifications/message (mcp-go reports an unset level as error, so an explicit error was
// taken for none). One that set error gets none; one that set none or info still gets them.
func TestSetLevelErrorSilencesInfoLogs(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	for _, tc := range []struct {
		name   string
		policy string
	}{
		{"with a policy", "principals:\n  - name: admin\n    token: " + levelTestToken + "\n"},
		{"without a policy", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := levelTestGateway(t, f, tc.policy)
			connect := func(name string) *client.Client {
				return levelTestClient(t, url, name, tc.policy != "")
			}
			sleep := map[string]any{"serial": serial, "seconds": 0.3}

			unset, set, info := connect("unset"), connect("error"), connect("info")
			heardUnset, heardError, heardInfo := infoLogs(unset), infoLogs(set), infoLogs(info)
			setLevel(t, set, mcpgo.LoggingLevelError)
			setLevel(t, info, mcpgo.LoggingLevelInfo)
			for _, c := range []*client.Client{unset, set, info} {
				farmtest.MustCall(t, c, "sleep", sleep)
				farmtest.MustCall(t, c, "list_available_devices", nil) // a round trip after the last notification
			}
			farmtest.Eventually(t, 10*time.Second, func() bool { return heardUnset() > 0 && heardInfo() > 0 },
				"info messages for the clients that set no level (%d) and info (%d)", heardUnset(), heardInfo())
			assert.Zero(t, heardError(), "info messages for a client that set error")
		})
	}
}

const levelTestToken = "level-test-token-3f9b1c"

// levelTestGateway serves a gateway over f's farm with policy (none if "") and returns its
// /mcp URL.
func levelTestGateway(t *testing.T, f *farmtest.Farm, policy string) string {
	t.Helper()
	var opts mcp.Options
	if policy != "" {
		pol, err := mcp.ParsePolicy([]byte(policy), t.TempDir())
		require.NoError(t, err)
		opts.Policy = pol
	}
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), opts)
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// levelTestClient is a client of a revision with sessions (and logging/setLevel), sending
// levelTestToken when withToken.
func levelTestClient(t *testing.T, url, name string, withToken bool) *client.Client {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if withToken {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + levelTestToken}))
	}
	c, err := client.NewStreamableHttpClient(url, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	init.Params.ProtocolVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	return c
}

func setLevel(t *testing.T, c *client.Client, level mcpgo.LoggingLevel) {
	t.Helper()
	req := mcpgo.SetLevelRequest{}
	req.Params.Level = level
	require.NoError(t, c.SetLevel(t.Context(), req))
}

// infoLogs counts the info-level notifications/message c receives.
func infoLogs(c *client.Client) func() int {
	var mu sync.Mutex
	n := 0
	c.OnNotification(func(m mcpgo.JSONRPCNotification) {
		if m.Method == string(mcpgo.MethodNotificationMessage) && m.Params.AdditionalFields["level"] == string(mcpgo.LoggingLevelInfo) {
			mu.Lock()
			n++
			mu.Unlock()
		}
	})
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}
