package ios

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// An .ipa whose CFBundleIdentifier is no bundle id (QA: com.qa13.démo) is refused before the
// copy, naming the id and the rule. It was installed ("the device did not say which package it
// is"), listed, and then refused by name by app_launch and app_uninstall: it could never be
// removed.
func TestIPAWithBadBundleIDIsBadInput(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	const id = "com.qa13.démo"
	plist := `<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict>` +
		`<key>CFBundleIdentifier</key><string>` + id + `</string></dict></plist>`
	path := writeFile(t, "demo.ipa", zipOf(t, entry{name: "Payload/Demo.app/Info.plist", data: plist}, entry{name: "Payload/Demo.app/Demo", data: "exe"}))
	_, err := tools.DefaultOps()["app_install"].Run(t.Context(), &tools.Task{Driver: d, Args: json.RawMessage(`{"appUrl":"` + path + `"}`)})
	if err == nil {
		t.Fatal("installed")
	}
	if got := tools.ErrorCode(err); got != broker.CodeBadInput {
		t.Errorf("code %s, want %s (%v)", got, broker.CodeBadInput, err)
	}
	for _, s := range []string{`CFBundleIdentifier "` + id + `" is no bundle id`, "letters A-Z and a-z, digits, '-' and '.'", "launch or remove", "Bundle Identifier in Xcode"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("%q does not say %q", err, s)
		}
	}
	if hasApp(sims.Devices()[0].Apps(), id) {
		t.Error("an app of bad bundle id was installed")
	}
}
