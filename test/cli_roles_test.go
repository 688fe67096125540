package test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// corralRun runs the corral command in dir with only env (and PATH, HOME in a temporary
// directory: no natscli context of the machine's), and returns what it printed and how long it
// took.
func corralRun(t *testing.T, dir string, env []string, args ...string) (string, time.Duration, error) {
	t.Helper()
	bin := corral(t) // before the command's minutes (runCorral)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	home := t.TempDir()
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_CONFIG_HOME=" + home}, env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	return string(out), time.Since(start), err
}

// slow is how long a command may take here before it is taken to have waited out its
// --timeout (longTimeout, given to every command below): far above what the commands take
// on a loaded machine, far below the timeout.
const (
	longTimeout = "90s"
	slow        = 45 * time.Second
)

// On a fresh farm (no lease group made yet), every documented command of the admin and the
// operator works with their NATS contexts, at once: the admin's CLI groups leases (it may make
// the lease groups bucket), the operator's lists leases beside groups (it may read the bucket,
// and reads none that is missing). What a role may not do fails at once, saying so, never
// hinting at an older Corral; the in-process front door logs nothing of its own shutdown.
func TestCLIRolesOnAFreshFarm(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 3, Auth: true})
	dir := t.TempDir()
	as := func(user string, args ...string) (string, error) {
		t.Helper()
		out, took, err := corralRun(t, dir, []string{"NATS_CONTEXT=" + f.Context(user)}, append(args, "--timeout", longTimeout)...)
		assert.Less(t, took, slow, "corral %s as %s waited out its timeout:\n%s", strings.Join(args, " "), user, out)
		assert.NotContains(t, out, "level=WARN", "corral %s as %s", strings.Join(args, " "), user)
		assert.NotContains(t, out, "level=ERROR", "corral %s as %s", strings.Join(args, " "), user)
		assert.NotContains(t, out, "nats-auth again", "corral %s as %s", strings.Join(args, " "), user)
		return out, err
	}
	op := broker.UserName(broker.RoleOperator, "")

	// An agent's lease, listed by the operator before any group exists.
	farmtest.MustCall(t, f.Client("alice"), "acquire_device", args("serial", "n1-p3"))
	out, err := as(op, "leases")
	require.NoError(t, err, out)
	assert.Contains(t, out, "n1-p3")

	// The admin groups two devices: the first group of the farm.
	out, err = as("admin", "call", "acquire_device", `{"count":2}`)
	require.NoError(t, err, out)
	group := regexp.MustCompile(`group_[a-z0-9]+`).FindString(out)
	require.NotEmpty(t, group, out)
	for _, user := range []string{"admin", op} {
		out, err = as(user, "leases")
		require.NoError(t, err, out)
		contains(t, out, "n1-p1", "n1-p2", "3 leases")
		out, err = as(user, "devices")
		require.NoError(t, err, out)
		contains(t, out, "n1-p1", "leased")
		out, err = as(user, "tasks")
		require.NoError(t, err, out)
	}
	out, err = as("admin", "drain", "n1", "--status")
	require.NoError(t, err, out)
	assert.Contains(t, out, "takes new work")

	// What the operator may not do, refused at once.
	for _, c := range [][]string{
		{"call", "tap_xy", `{"serial":"n1-p1","lease":"` + group + `","x":0.5,"y":0.5}`},
		{"release", "n1-p1", "--force"},
		{"drain", "n1"},
		{"drain", "n1", "--status"},
	} {
		out, err = as(op, c...)
		require.Error(t, err, "the operator could corral %s:\n%s", strings.Join(c, " "), out)
		assert.Contains(t, out, `NATS refused to let NATS user "operator" publish to "corral.v1.node.n1.`)
		assert.Contains(t, out, "this NATS user's role may not do this; node requests need the admin or gateway role")
	}

	// The admin's calls, the lease from the environment (not argv); then the group's handle
	// gives the whole group back over NATS, as through a gateway.
	for range 5 {
		out, _, err = corralRun(t, dir, []string{"NATS_CONTEXT=" + f.Context("admin"), "CORRAL_LEASE=" + group},
			"call", "tap_xy", `{"serial":"n1-p1","x":0.5,"y":0.5}`)
		require.NoError(t, err, out)
		assert.Contains(t, out, "tapped at")
		assert.NotContains(t, out, "level=WARN")
	}
	leaseFile := filepath.Join(dir, "group.lease")
	require.NoError(t, os.WriteFile(leaseFile, []byte(group+"\n"), 0o600))
	out, err = as("admin", "release", "n1-p1", "--lease-file", leaseFile)
	require.NoError(t, err, out)
	contains(t, out, "Released group", "n1-p1", "n1-p2")
	held, err := f.Gateway().Client.Leases(t.Context())
	require.NoError(t, err)
	require.Len(t, held, 1, "the group's devices are still held: %+v", held)
	assert.Equal(t, "n1-p3", held[0].Serial)
}

// Beside `make run` the CLI needs no flag: without --nats-url, --nats-context, NATS_URL,
// NATS_CONTEXT or a selected natscli context it takes ./data/nats/admin.json, corral up's. A
// NATS_CONTEXT that names no file fails, naming it.
func TestCLIFindsTheLocalFarm(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Auth: true})
	dir := t.TempDir()
	b, err := os.ReadFile(f.Context("admin"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data", "nats"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data", "nats", "admin.json"), b, 0o600))

	out, _, err := corralRun(t, dir, nil, "devices")
	require.NoError(t, err, out)
	contains(t, out, "n1-p1", "1 device")

	for _, ctx := range []string{"nosuch", filepath.Join(dir, "nosuch.json")} {
		out, _, err = corralRun(t, dir, []string{"NATS_CONTEXT=" + ctx}, "devices")
		require.Error(t, err, out)
		assert.Contains(t, out, "nosuch.json: open", "NATS_CONTEXT=%s", ctx)
	}
}

// An agent task started without waiting through the CLI runs on its node after the command
// ends, and the command says nothing of its own shutdown (its connection closing under the
// task's pending answer).
func TestCLIStartsATaskWithoutWaiting(t *testing.T) {
	f, _, serial := agentFarm(t,
		call("plan", `{"steps":[{"title":"Wait for the model"}]}`),
		modelsim.Turn{Delay: time.Minute, Text: "too late"},
	)
	out, err := runCorral(t, "call", "--nats-url", f.URL, "run_agent_task", `{"serial":"`+serial+`","goal":"think long","wait":false}`)
	require.NoError(t, err, out)
	assert.Contains(t, out, `"status":"running"`)
	assert.NotContains(t, out, "level=WARN")
	id := regexp.MustCompile(`t_[a-z0-9]+`).FindString(out)
	require.NotEmpty(t, id, out)
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil && d.Task.ID == id
	}, "the task running on its device after the command ended")
	out, err = runCorral(t, "abort", "--nats-url", f.URL, serial)
	require.NoError(t, err, out)
}
