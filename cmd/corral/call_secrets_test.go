package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call's error leaves out the secret arguments it sent when the tool's refusal quotes
// them (a phone has no app of that name): the error goes to stderr, which a CI log keeps. The
// node shows a URL's password as REDACTED itself (213363f); corral call's own redaction,
// "…(redacted)", covers a node or tool that does not.
func TestCallErrorKeepsSecretsOut(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	for _, c := range []struct{ tool, args, secret string }{
		{"app_launch", `{"serial":"` + serial + `","packageName":"http://user:call-SECRET-pw@example.invalid/"}`, "call-SECRET-pw"},
		{"app_launch", `{"serial":"` + serial + `","packageName":"http://call-SECRET-token@example.invalid/"}`, "call-SECRET-token"},
	} {
		var code int
		said := captureOutput(t, func() {
			code = realMain([]string{"call", "--gateway", f.Gateway().MCPURL, "--log-level", "debug", c.tool, c.args})
		})
		assert.Equal(t, 1, code, said)
		assert.Contains(t, said, "corral call: ", "the tool's refusal is told")
		assert.Regexp(t, `REDACTED|…\(redacted\)`, said, "the refusal quoted the secret, shown as left out")
		assert.NotContains(t, said, c.secret)
	}
}
