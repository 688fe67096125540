package test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// Principals of the force release policy: alice runs work; opro is an operator whose tools are
// read-only; ops (policy_paths_test.go's token) is an operator with every tool.
const (
	aliceToken  = "alice-token-3b4c5d6e7f8091a2"
	oproToken   = "opro-token-5e6f708192a3b4c5"
	forcePolicy = `principals:
  - name: alice
    token: ` + aliceToken + `
  - name: opro
    token: ` + oproToken + `
    tools: [readonly]
    operator: true
  - name: ops
    token: ` + opsToken + `
    operator: true
`
)

// QA (HIGH): the console's Force release aborts the device's running task, so it obeys the
// principal's tools rule as abort_task does: opro, an operator with tools [readonly], sees no
// Force release button, its forged POST gets 403 and the policy's words, and alice keeps her
// lease and her running call; ops, an operator who may call abort_task, revokes it.
func TestConsoleForceReleaseObeysToolsRule(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Quiet: true})
	base := consolePolicyGateway(t, f, forcePolicy)
	alice := mustAuthClient(t, base+"/mcp", "alice-agent", aliceToken)
	lease := leaseOf(t, farmtest.MustCall(t, alice, "acquire_device", args("serial", "n1-p1")))
	sleeping := farmtest.Go(t, alice, "sleep", args("serial", "n1-p1", "lease", lease, "seconds", 60))
	running := func() bool {
		d, _ := f.Gateway().Client.Device("n1-p1")
		return d.Task != nil && d.Task.Tool == "sleep"
	}
	farmtest.Eventually(t, 10*time.Second, running, "alice's sleep runs")

	opro := openConsole(t, base, oproToken, "n1-p1")
	assert.NotContains(t, opro.page, `data-action="force_release"`, "opro may not abort, so not force a release")
	denied := `corral_gateway_denied_total{reason="tool"}`
	was := scrape(t, base, denied)
	status, msg := opro.post(t, "force_release", "")
	assert.Equal(t, http.StatusForbidden, status, msg)
	assert.Contains(t, msg, `denied by policy: principal "opro" may not force the release of n1-p1, which aborts its running task: `+
		`it may not call abort_task (rule: tools [readonly])`)
	assert.Equal(t, was+1, scrape(t, base, denied), "the refusal counts as the tools rule's")
	select {
	case a := <-sleeping:
		t.Fatalf("alice's sleep ended after opro's refused force release: %s", farmtest.Text(a.Get(t)))
	default:
	}
	var list struct{ Leases []struct{ Serial string } } // the lease store's, not a registry cache's
	farmtest.Structured(t, farmtest.MustCall(t, alice, "list_leases", args("serial", "n1-p1")), &list)
	require.Len(t, list.Leases, 1, "opro's refused force release revoked alice's lease")
	require.True(t, running(), "opro's refused force release ended alice's task")

	ops := openConsole(t, base, opsToken, "n1-p1")
	assert.Contains(t, ops.page, `data-action="force_release"`)
	status, msg = ops.post(t, "force_release", "")
	require.Equal(t, http.StatusOK, status, msg)
	assert.Contains(t, msg, "Revoked the lease of n1-p1 held by alice (alice-agent)")
	select {
	case a := <-sleeping:
		assert.Contains(t, farmtest.Text(a.Get(t)), "abort")
	case <-time.After(15 * time.Second):
		t.Fatal("alice's sleep did not end after ops's force release")
	}
}
