package test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

const (
	poolToken   = "pool-a-7d6c5b4a39281706f5e4"
	poolOpToken = "pool-op-0f1e2d3c4b5a69788796"
)

// poolPolicy gives ci the pool-a devices, and ops every device.
const poolPolicy = `principals:
  - name: ci
    token: ` + poolToken + `
    tags: [pool-a]
  - name: ops
    token: ` + poolOpToken + `
`

// A pool by tag, as docs/auth.md and docs/helm.md promise: `corral node --device-tags pool-a`
// gives its devices pool-a beside their driver's own tag, and a principal with tags [pool-a]
// uses them, and no device of a node without the tag; corral devices --json shows the tags.
func TestDeviceTagsGiveAPoolToAPrincipal(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1}) // n1-p1: tagged sim only
	_, out, ok := startCorralUntil(t, "node ready", "node", "--node-id", "pool", "--nats-url", f.URL,
		"--device-tags", "pool-a", "--sim", "1", "--adb", "off", "--usbmuxd", "off", "--metrics", "", "--log-level", "info")
	require.True(t, ok, "corral node --device-tags pool-a did not start:\n%s", out)
	c, url := gatewayWithPolicy(t, f, poolPolicy, mcp.Options{})
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(c.Devices()) == 2 }, "the gateway sees n1-p1 and sim-pool-01")

	ci := mustAuthClient(t, url, "pipeline", poolToken)
	var list struct{ AndroidDevices []string }
	farmtest.Structured(t, farmtest.MustCall(t, ci, "list_available_devices", nil), &list)
	assert.Equal(t, []string{"sim-pool-01"}, list.AndroidDevices, "what ci sees")
	farmtest.MustCall(t, ci, "tap_xy", args("serial", "sim-pool-01", "x", 0.5, "y", 0.5))
	res := farmtest.Call(t, ci, "tap_xy", args("serial", "n1-p1", "x", 0.5, "y", 0.5))
	require.True(t, res.IsError, "ci tapped n1-p1, of a node without pool-a")
	contains(t, farmtest.Text(res), `denied by policy: principal "ci" may not use device n1-p1 (rule: tags [pool-a]`)
	assert.Empty(t, f.Phone("n1-p1").InputLog(), "n1-p1 was touched")

	dir := t.TempDir()
	tagsShown := func(token string) map[string][]string {
		t.Helper()
		file := filepath.Join(dir, "token")
		require.NoError(t, os.WriteFile(file, []byte(token+"\n"), 0o600))
		out, err := runCorral(t, "devices", "--json", "--gateway", url, "--token-file", file)
		require.NoError(t, err, out)
		var listed struct {
			Devices []struct {
				Serial string   `json:"serial"`
				Tags   []string `json:"tags"`
			} `json:"devices"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &listed), out)
		shown := map[string][]string{}
		for _, d := range listed.Devices {
			shown[d.Serial] = d.Tags
		}
		return shown
	}
	assert.Equal(t, map[string][]string{"sim-pool-01": {"sim", "pool-a"}}, tagsShown(poolToken), "corral devices --json as ci")
	assert.Equal(t, map[string][]string{"sim-pool-01": {"sim", "pool-a"}, "n1-p1": {"sim"}}, tagsShown(poolOpToken), "corral devices --json as ops")
}
