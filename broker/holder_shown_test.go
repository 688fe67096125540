package broker

import (
	"encoding/json"
	"testing"
)

// A holder shows with its session's tag, in one form everywhere it is shown, so that a user
// tells two sessions of one token apart; without a session it shows as before sessions were
// told apart. Name leaves the session out; PrincipalOf reads the principal back from either
// form, an older node's too.
func TestHolderShowsItsSession(t *testing.T) {
	for _, tc := range []struct {
		h           Holder
		shown, name string
	}{
		{Holder{"alice", "ci", "1a2b3c4d5e"}, "alice (ci) session 1a2b3c4d5e", "alice (ci)"},
		{Holder{"alice", "ci", ""}, "alice (ci)", "alice (ci)"},
		{Holder{"alice", "", "1a2b3c4d5e"}, "alice session 1a2b3c4d5e", "alice"},
		{Holder{"alice", "", ""}, "alice", "alice"},
	} {
		if got := tc.h.String(); got != tc.shown {
			t.Errorf("%+v shows as %q, want %q", tc.h, got, tc.shown)
		}
		if got := tc.h.Name(); got != tc.name {
			t.Errorf("%+v's name is %q, want %q", tc.h, got, tc.name)
		}
		if got := PrincipalOf(tc.h.String()); got != "alice" {
			t.Errorf("PrincipalOf(%q) = %q, want alice", tc.h.String(), got)
		}
	}
	if got := PrincipalOf(""); got != "" {
		t.Errorf(`PrincipalOf("") = %q`, got)
	}
}

// An older node sends a holder without a session, and reads a newer one's without minding
// the field it does not know: the wire form only gained an optional field.
func TestHolderWireFormWithoutSession(t *testing.T) {
	var h Holder
	if err := json.Unmarshal([]byte(`{"principal":"ci","client":"corral-run"}`), &h); err != nil {
		t.Fatal(err)
	}
	if h != (Holder{Principal: "ci", Client: "corral-run"}) || h.String() != "ci (corral-run)" {
		t.Errorf("an older node's holder reads as %+v, shown %q", h, h)
	}
	b, err := json.Marshal(Holder{Principal: "ci", Client: "corral-run"})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"principal":"ci","client":"corral-run"}` {
		t.Errorf("a holder without a session is sent as %s", b)
	}
}
