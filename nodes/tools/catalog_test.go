package tools

import (
	"testing"

	"github.com/corral-farm/corral/broker"
)

func TestDefaultOpsAreWellFormed(t *testing.T) {
	for name, op := range DefaultOps() {
		if op.Name != name || op.Run == nil {
			t.Errorf("op %q: name %q, run set %v", name, op.Name, op.Run != nil)
		}
		if op.Timeout <= 0 || op.MaxTimeout < op.Timeout {
			t.Errorf("op %s: timeout %v, max %v", name, op.Timeout, op.MaxTimeout)
		}
	}
}

// Arguments that are not a JSON object with known fields are refused by every op before the
// driver is touched.
func TestEveryOpRefusesGarbage(t *testing.T) {
	for name := range DefaultOps() {
		for _, args := range []string{`{"bogus":1}`, `[]`, `"x"`, `{`, `{} {}`, `null x`} {
			d := newAbled()
			_, err := runOp(t, name, d, args)
			wantCode(t, err, broker.CodeBadInput)
			if calls := d.Calls(); len(calls) != 0 {
				t.Errorf("%s %s reached the driver: %v", name, args, calls)
			}
		}
	}
}
