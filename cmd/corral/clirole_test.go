package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A command run with the NATS context of a role that may not do it names the contexts it
// takes, as corral gateway and corral node do: it ended in the refusal's generic "use the
// NATS context of a role that may".
func TestCommandWithAnotherRolesContextNamesItsOwn(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Auth: true})
	const reads = "runs as the operator or admin role: give --nats-context with its context, operator.json or admin.json"
	cases := []struct {
		user string
		args []string
		want string
	}{
		{broker.UserName(broker.RoleNode, "n1"), []string{"devices"}, "corral devices " + reads},
		{broker.UserName(broker.RoleNode, "n1"), []string{"tasks"}, "corral tasks " + reads},
		{broker.UserName(broker.RoleVision, ""), []string{"devices"}, "corral devices " + reads},
		{broker.UserName(broker.RoleVision, ""), []string{"leases"}, "corral leases " + reads},
		{broker.UserName(broker.RoleOperator, ""), []string{"drain", "n1", "--status"},
			"corral drain runs as the admin role: give --nats-context with its context, admin.json"},
	}
	for _, c := range cases {
		var code int
		out := captureOutput(t, func() {
			code = realMain(append(c.args, "--nats-context", f.Context(c.user), "--timeout", "20s"))
		})
		assert.Equal(t, 1, code, "%s %v: %s", c.user, c.args, out)
		assert.Contains(t, out, "NATS refused to let NATS user", "%s %v", c.user, c.args)
		assert.Contains(t, out, c.want, "%s %v", c.user, c.args)
	}
	// The operator's own context reads: nothing to add.
	var code int
	out := captureOutput(t, func() {
		code = realMain([]string{"devices", "--nats-context", f.Context(broker.UserName(broker.RoleOperator, "")), "--timeout", "20s"})
	})
	assert.Equal(t, 0, code, out)
	assert.NotContains(t, out, "runs as the")
}

// A flag's value the flag package cannot parse says what the flag takes: --since bogus said
// only "parse error".
func TestBadFlagValueSaysWhatItTakes(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tasks", "--since", "bogus"}, `invalid value "bogus" for flag --since: want a duration, e.g. 30s, 5m or 1h30m`},
		{[]string{"tasks", "--limit", "many"}, `invalid value "many" for flag --limit: want an integer, e.g. 3`},
	} {
		var code int
		out := captureOutput(t, func() { code = realMain(c.args) })
		assert.Equal(t, 2, code, out)
		assert.Contains(t, out, c.want)
		assert.NotContains(t, out, "parse error")
	}
}
