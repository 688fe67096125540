package nodes_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/micro"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// The leases endpoint refuses a request of a newer wire version, naming what to upgrade, as
// acquire, task and drain do: it never read the request, and answered {"v":2} in version 1.
// {} (what gateways send) and an empty request are answered.
func TestLeasesEndpointRefusesANewerRequest(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	nc, err := broker.Connect(f.Connect("", "leases-asker"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	subject := fmt.Sprintf(broker.NodeGroupT, "n1") + "." + broker.EndpointLeases
	ask := func(body string) (code, desc string, ans broker.LeasesAnswer) {
		m, err := nc.Request(subject, []byte(body), 5*time.Second)
		require.NoError(t, err, "request %q", body)
		if m.Header.Get(micro.ErrorCodeHeader) != "" {
			return m.Header.Get(micro.ErrorCodeHeader), m.Header.Get(micro.ErrorHeader), ans
		}
		require.NoError(t, json.Unmarshal(m.Data, &ans), "answer to %q: %s", body, m.Data)
		return "", "", ans
	}

	code, desc, _ := ask(fmt.Sprintf(`{"v":%d}`, broker.WireVersion+1))
	assert.Equal(t, "400", code, "a newer request is refused")
	assert.Equal(t, fmt.Sprintf("wire version %d is newer than this node's %d; upgrade the node", broker.WireVersion+1, broker.WireVersion), desc)

	code, desc, _ = ask(`{"v":`)
	assert.Equal(t, "400", code, "a malformed request is refused")
	assert.Contains(t, desc, "malformed request")

	for _, body := range []string{`{}`, fmt.Sprintf(`{"v":%d}`, broker.WireVersion), ``} {
		code, desc, ans := ask(body)
		assert.Empty(t, code, "request %q: %s", body, desc)
		assert.Equal(t, broker.WireVersion, ans.V, "request %q answered", body)
	}
}
