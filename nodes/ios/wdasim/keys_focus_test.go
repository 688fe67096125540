package wdasim_test

import (
	"strings"
	"testing"
)

// DEL and ENTER need a focused field, as any text does: with none, /wda/keys answers "invalid
// element state" (bad_input to a caller) and the phone gets no key. Before, the simulated WDA
// pressed them on the phone, which took them as harmless key presses, and answered success.
func TestKeysDelEnterNeedAFocusedField(t *testing.T) {
	r := newRig(t, 750, 1334, 2)
	s := "/session/" + r.session()
	n := len(r.phone.InputLog())
	for _, keys := range []string{"\b", "\n", "\u007f"} {
		r.fails("POST", s+"/wda/keys", map[string]any{"value": []string{keys}}, 400, "invalid element state")
	}
	r.ok("POST", s+"/wda/apps/launch", map[string]any{"bundleId": "com.corral.notes"})
	r.phone.ShowPopup("Rate this app", "Later")
	r.fails("POST", s+"/wda/keys", map[string]any{"value": []string{"\n"}}, 400, "invalid element state")
	for _, l := range r.phone.InputLog()[n:] {
		if strings.HasPrefix(l, "key ") {
			t.Errorf("a key with no field focused reached the phone: %q", l)
		}
	}
	r.ok("POST", s+"/wda/pressButton", map[string]any{"name": "home"}) // closes the popup
	r.ok("POST", s+"/wda/apps/launch", map[string]any{"bundleId": "com.corral.notes"})
	r.ok("POST", s+"/wda/keys", map[string]any{"value": []string{"a", "b", "\b", "\n"}})
	if got := r.phone.Note(); got != "a\n" {
		t.Errorf("note = %q, want %q", got, "a\n")
	}
}
