package test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A second corral up on the data directory of a running one refuses before it touches anything:
// it names the running process, and the natscli contexts still point at the running farm.
func TestCorralUpRefusesASecondOnItsData(t *testing.T) {
	data := t.TempDir()
	corralUp(t, "--data", data, "--sim", "1")
	lock, err := os.ReadFile(filepath.Join(data, "corral.lock"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(lock)))
	require.NoError(t, err, "corral.lock holds %q", lock)
	before, err := os.ReadFile(filepath.Join(data, "nats", "admin.json"))
	require.NoError(t, err)

	out, _, err := corralRun(t, t.TempDir(), nil, "up", "--data", data, "--nats-port", "-1", "--http", "127.0.0.1:0", "--sim", "1")
	require.Error(t, err, out)
	assert.Contains(t, out, "another corral up (process "+strconv.Itoa(pid)+") uses this data dir")
	assert.Contains(t, out, "stop it or pass another --data")
	after, err := os.ReadFile(filepath.Join(data, "nats", "admin.json"))
	require.NoError(t, err)
	assert.Equal(t, before, after, "the second corral up rewrote the running farm's context")
}

// Through a gateway with an auth policy, the CLI and the stdio bridge say what is wrong in the
// gateway's words: a URL without /mcp is taken as its /mcp (and said so), a missing token asks
// for one, a wrong one is reported as the gateway answered it, and the bridge, which reached the
// gateway, does not call it unreachable.
func TestCLIGatewayMessages(t *testing.T) {
	dir := t.TempDir()
	const token = "0123456789abcdef0123456789abcdef"
	policy := filepath.Join(dir, "policy.yaml")
	require.NoError(t, os.WriteFile(policy, []byte("principals:\n  - name: ci\n    token: "+token+"\n"), 0o600))
	good, bad := filepath.Join(dir, "good.token"), filepath.Join(dir, "bad.token")
	require.NoError(t, os.WriteFile(good, []byte(token+"\n"), 0o600))
	require.NoError(t, os.WriteFile(bad, []byte("not-the-token\n"), 0o600))
	mcpURL := corralUp(t, "--auth-policy", policy, "--sim", "1")
	root := strings.TrimSuffix(mcpURL, "/mcp")

	out, _, err := corralRun(t, dir, nil, "devices", "--gateway", root, "--token-file", good)
	require.NoError(t, err, out)
	contains(t, out, "using the gateway's MCP endpoint, "+mcpURL, "sim-local-01")

	out, _, err = corralRun(t, dir, nil, "call", "--gateway", mcpURL, "--token-file", bad, "list_leases")
	require.Error(t, err, out)
	contains(t, out, "refused the bearer token from --token-file "+bad, "the bearer token is not valid for this gateway")
	assert.NotContains(t, out, "pass --token-file")

	out, _, err = corralRun(t, dir, nil, "call", "--gateway", mcpURL, "list_leases")
	require.Error(t, err, out)
	contains(t, out, "wants a bearer token", "pass --token-file FILE or set CORRAL_TOKEN")
	assert.NotContains(t, out, "legacy SSE")

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--gateway", root}, "--token-file FILE in its arguments, or CORRAL_TOKEN in its environment"},
		{[]string{"--gateway", mcpURL, "--token-file", bad}, "the bearer token is not valid for this gateway"},
	} {
		cmd := exec.CommandContext(t.Context(), corral(t), append([]string{"mcp-stdio", "--log-level", "error"}, c.args...)...)
		cmd.Stdin = strings.NewReader(initialize)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), stderr.String())
		contains(t, stdout.String(), "the corral gateway refused the request: it answered 401", c.want)
		assert.NotContains(t, stdout.String(), "unreachable")
	}
	out, _, err = corralRun(t, dir, nil, "call", "--gateway", mcpURL, "--token-file", good, "tap_yx")
	require.Error(t, err, out)
	assert.Contains(t, out, `no tool "tap_yx" (did you mean "tap_xy"?)`)
}

// --check-config reads the files a real start reads: a rigs file that is missing or has an
// unknown key fails the check as it would fail the start.
func TestCheckConfigReadsTheRigsFile(t *testing.T) {
	dir := t.TempDir()
	badKey := filepath.Join(dir, "rigs.yaml")
	require.NoError(t, os.WriteFile(badKey, []byte("rigs:\n  - serial: r1\n    bogus: 1\n"), 0o600))
	for _, cmd := range []string{"up", "node"} {
		for file, want := range map[string]string{filepath.Join(dir, "nosuch.yaml"): "no such file", badKey: `unknown key "bogus"`} {
			out, _, err := corralRun(t, dir, nil, cmd, "--check-config", "--arm", file)
			require.Error(t, err, "corral %s --check-config --arm %s: %s", cmd, file, out)
			assert.Contains(t, out, want)
			assert.NotContains(t, out, "configuration ok")
		}
	}
}

// Every command's -h names each flag's argument with one word (its type): a usage string with
// backquotes would make Go's flag package take the quoted text as the argument's name.
func TestFlagHelpNamesArguments(t *testing.T) {
	flagLine := regexp.MustCompile(`^  -[a-z0-9-]+( [a-z]+)?$`)
	for _, cmd := range []string{"up", "gateway", "node", "nats-auth", "mcp-stdio", "devices", "leases", "call", "run", "abort",
		"release", "drain", "tasks"} {
		out, _, _ := corralRun(t, t.TempDir(), nil, cmd, "-h")
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "  -") {
				n++
				assert.Regexp(t, flagLine, line, "corral %s -h", cmd)
			}
		}
		assert.NotZero(t, n, "corral %s -h printed no flags:\n%s", cmd, out)
	}
}

// corral devices shows why a device is out of service (as get_device_status does): here, its
// node is draining.
func TestDevicesShowTheReason(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	out, err := runCorral(t, "drain", "n1", "--nats-url", f.URL)
	require.NoError(t, err, out)
	out, err = runCorral(t, "devices", "--nats-url", f.URL)
	require.NoError(t, err, out)
	contains(t, out, "REASON", "node n1 is draining")
	out, err = runCorral(t, "devices", "--json", "--gateway", f.Gateway().MCPURL)
	require.NoError(t, err, out)
	assert.Contains(t, out, `"reason":"node n1 is draining"`)
}
