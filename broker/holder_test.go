package broker

import "testing"

// A lease holder is the caller when principal, client and session agree. A holder without a
// session (granted by a node or gateway that did not carry one) is any session's of its
// principal and client: a caller must never queue behind a lease that may be its own.
func TestHolderIs(t *testing.T) {
	s1, s2 := Holder{"ci", "corral-run", "aaaaaaaaaa"}, Holder{"ci", "corral-run", "bbbbbbbbbb"}
	old := Holder{"ci", "corral-run", ""}
	for _, tc := range []struct {
		name           string
		holder, caller Holder
		want           bool
	}{
		{"same session", s1, s1, true},
		{"another session", s1, s2, false},
		{"a holder without session", old, s2, true},
		{"a caller without session", s1, old, false},
		{"neither has one", old, old, true},
		{"another client", s1, Holder{"ci", "claude", s1.Session}, false},
		{"another principal", s1, Holder{"bob", "corral-run", s1.Session}, false},
	} {
		if got := tc.holder.Is(tc.caller); got != tc.want {
			t.Errorf("%s: %+v.Is(%+v) = %v, want %v", tc.name, tc.holder, tc.caller, got, tc.want)
		}
	}
}
