package main

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/mcp"
)

// --sessions-per-principal: a bound as given; 0 (the default) sizes it from
// --sessions-max-bytes, from CORRAL_SESSIONS_PER_PRINCIPAL too; below 0 is refused.
func TestGatewayFlagsSessionsPerPrincipal(t *testing.T) {
	bound := func(args ...string) (int, error) {
		t.Helper()
		f := newFlags("gateway")
		gf := f.gatewayFlags()
		if err := f.parse(args); err != nil {
			t.Fatal(err)
		}
		o, err := gf.options()
		return o.Limits.SessionsPerPrincipal, err
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{nil, mcp.SessionsPerPrincipalFor(128<<20, 1)},
		{[]string{"--sessions-max-bytes", "1MiB"}, (512<<10 - 4096*11) / 1024},
		{[]string{"--sessions-per-principal", "50"}, 50},
	} {
		if got, err := bound(c.args...); err != nil || got != c.want {
			t.Errorf("%v: %d, %v; want %d", c.args, got, err, c.want)
		}
	}
	if got := mcp.SessionsPerPrincipalFor(128<<20, 1); got != 65492 {
		t.Errorf("the default bucket's bound for one principal: %d, want 65492", got)
	}
	if _, err := bound("--sessions-per-principal", "-1"); err == nil || !strings.Contains(err.Error(), "--sessions-per-principal -1") {
		t.Errorf("-1: %v, want a refusal naming the flag", err)
	}
	t.Setenv("CORRAL_SESSIONS_PER_PRINCIPAL", "7")
	if got, err := bound(); err != nil || got != 7 {
		t.Errorf("CORRAL_SESSIONS_PER_PRINCIPAL=7: %d, %v", got, err)
	}
}
