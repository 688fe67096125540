package test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// Denials by the policy are logged, once each: the principal, the tool, the device, the rule
// and the caller's address, never the token or a lease handle. A denial repeated at once is
// counted, not logged again (the line after the window says how many).
func TestPolicyDenialsAreLogged(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	const viewerToken, ciToken, teamToken = "viewer-0a1b2c3d4e5f60718293", "ci-6f1e2d3c4b5a69788796a5b4", "team-8a9b0c1d2e3f405162738495"
	policy := "principals:\n" +
		"  - name: viewer\n    token: " + viewerToken + "\n    tools: [readonly]\n" +
		"  - name: ci\n    token: " + ciToken + "\n    tags: [pool-b]\n" +
		"  - name: team\n    token: " + teamToken + "\n    max_devices: 1\n"
	policyFile := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(policyFile, []byte(policy), 0o600))
	url, logs := authGateway(t, f, policyFile, 2)
	denials := func(parts ...string) []string {
		var out []string
		for _, line := range strings.Split(logs.String(), "\n") {
			if !strings.Contains(line, `msg="refused call by policy"`) {
				continue
			}
			if slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
				continue
			}
			out = append(out, line)
		}
		return out
	}

	viewer, err := authClient(t, url, "dashboard", viewerToken)
	require.NoError(t, err)
	for range 3 {
		res := farmtest.Call(t, viewer, "tap_xy", args("serial", "n1-p1", "x", 0.5, "y", 0.5))
		require.True(t, res.IsError, farmtest.Text(res))
	}
	got := denials()
	require.Len(t, got, 1, "three denials of one kind at once, logged:\n%s", strings.Join(got, "\n"))
	contains(t, got[0], "level=INFO", "reason=tool", "principal=viewer", "tool=tap_xy", `rule="tools [readonly]"`, "remote=127.0.0.1:")

	ci, err := authClient(t, url, "pipeline", ciToken)
	require.NoError(t, err)
	require.True(t, farmtest.Call(t, ci, "tap_xy", args("serial", "n1-p2", "x", 0.5, "y", 0.5)).IsError)
	got = denials("reason=device")
	require.Len(t, got, 1, "the device denial, logged:\n%s", logs.String())
	contains(t, got[0], "principal=ci", "tool=tap_xy", "serial=n1-p2", `rule="tags [pool-b]"`, "remote=127.0.0.1:")

	team, err := authClient(t, url, "team-client", teamToken)
	require.NoError(t, err)
	held := acquire(t, team, args("serial", "n1-p1"))
	require.True(t, farmtest.Call(t, team, "acquire_device", args("serial", "n1-p2")).IsError)
	got = denials("reason=quota")
	require.Len(t, got, 1, "the quota denial, logged:\n%s", logs.String())
	contains(t, got[0], "principal=team", "tool=acquire_device", "serial=n1-p2", "max_devices 1", "remote=127.0.0.1:")

	out := logs.String()
	t.Logf("denials logged:\n%s", strings.Join(denials(), "\n"))
	for _, secret := range []string{viewerToken, ciToken, teamToken, held.Lease.Handle} {
		assert.NotContains(t, out, secret, "the gateway's log shows a token or a lease handle")
	}
}
