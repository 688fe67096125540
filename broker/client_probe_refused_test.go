package broker

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// A client's first subscriptions to two nodes' probes may be made at once, and NATS refuses a
// subscription asynchronously, kept as the connection's one last error. Here the gateway's
// user may not listen to n1's or n3's probes, and n1's refusal comes while n2's and n3's
// subscriptions wait for their round trips: n2's (allowed) is not taken as refused, nor n3's
// own refusal lost under n1's. Each node's answer is for good: a refused node is not subscribed
// to again.
func TestConcurrentProbeSubscriptionsTellEachNodesOwnRefusal(t *testing.T) {
	gw, err := PermissionsFor(RoleGateway, "")
	require.NoError(t, err)
	gw.SubscribeDeny = append(gw.SubscribeDeny, fmt.Sprintf(ProgressT, "n1", "*"), fmt.Sprintf(ProgressT, "n3", "*"))
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: []embedded.User{
		{Name: "gateway", Password: "pw", Permissions: embedded.Permissions(gw)},
		{Name: "node", Password: "pw", Permissions: embedded.Permissions{PublishAllow: []string{">"}, SubscribeAllow: []string{">"}}},
	}}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	pwFile := filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(pwFile, []byte("pw"), 0o600))
	nc, err := Connect(ConnectOptions{URL: ns.ClientURL(), User: "gateway", PasswordFile: pwFile}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	node, err := nats.Connect(ns.ClientURL(), nats.UserInfo("node", "pw"))
	require.NoError(t, err)
	t.Cleanup(node.Close)

	// n2's and n3's first round trips are made, then held until n1's refusal has come: it is the
	// connection's last error when they look.
	n1Refused := make(chan struct{})
	waiting := make(chan string, 2)
	var mu sync.Mutex
	flushes := map[string]int{}
	p := &probeListener{flush: func(ctx context.Context, node string) error {
		mu.Lock()
		flushes[node]++
		first := flushes[node] == 1
		mu.Unlock()
		err := nc.FlushWithContext(ctx)
		if err != nil || node == "n1" || !first {
			return err
		}
		waiting <- node
		select {
		case <-n1Refused:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}

	tokens := map[string]chan string{"n2": make(chan string, 1), "n3": make(chan string, 1)}
	for n, token := range tokens {
		go func() { token <- p.tokenFor(call(t), nc, n) }()
	}
	for range tokens {
		select {
		case <-waiting:
		case <-call(t).Done():
			t.Fatal("n2's and n3's subscriptions never made their round trips")
		}
	}
	assert.Empty(t, p.tokenFor(call(t), nc, "n1"), "n1, refused, has a probe token")
	r := refusalOf("", nc.LastError())
	require.NotNil(t, r, "n1's subscription was not refused: %v", nc.LastError())
	require.Equal(t, fmt.Sprintf(ProgressT, "n1", p.token), r.Subject, "the connection's last error")
	close(n1Refused)

	assert.Equal(t, p.token, <-tokens["n2"], "n2, allowed, went without a probe token while n1's refusal came")
	assert.True(t, listened(t, node, fmt.Sprintf(ProgressT, "n2", p.token)), "no one listens on n2's probe")
	assert.Empty(t, <-tokens["n3"], "n3, refused, has a probe token")

	// The refused nodes' answers are for good; n2's subscription is made.
	for _, n := range []string{"n1", "n2", "n3"} {
		want := ""
		if n == "n2" {
			want = p.token
		}
		assert.Equal(t, want, p.tokenFor(call(t), nc, n), "%s's next task", n)
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, flushes["n1"], "n1's subscriptions (refused, alone)")
	assert.Equal(t, 2, flushes["n3"], "n3's subscriptions (refused while n1's refusal came after its own: once more)")
}
