package steps

import (
	"context"
	"strings"
)

// policyDenial begins a gateway's refusal of a tool its auth policy does not let the caller's
// token call (mcp/auth.go's authorize).
const policyDenial = "denied by policy: "

// probeArg is an argument no tool takes: a tool missing from tools/list that the gateway would
// run after all refuses the call when it decodes its arguments, so that asking runs nothing.
const probeArg = "corral_run_probe"

// AskGateway asks the gateway about each tool doc names that its tools/list lacks. A gateway
// with an auth policy lists only the tools the caller's token may call, and answers a call of
// another with its policy's refusal, before anything runs; the plan's error then says that
// this token may not use the tool, in the gateway's words, rather than that the gateway has
// no such tool. A gateway that has no such tool answers "not found", and is told nothing.
func (c *Catalog) AskGateway(ctx context.Context, caller Caller, doc *Document) {
	asked := map[string]bool{}
	for _, s := range doc.Steps {
		tool := s.Method()
		if tool == "" || c.Has(tool) || asked[tool] {
			continue
		}
		asked[tool] = true
		res, err := caller.CallTool(ctx, newRequest(tool, map[string]any{probeArg: true}))
		if err != nil || res == nil || !res.IsError {
			continue
		}
		if text := resultText(res); strings.HasPrefix(text, policyDenial) {
			if c.denied == nil {
				c.denied = map[string]string{}
			}
			c.denied[tool] = text
		}
	}
}
