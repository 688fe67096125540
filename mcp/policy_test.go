package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestPolicyLoadsYAMLAndJSON(t *testing.T) {
	dir := t.TempDir()
	const fileToken = "file-token-0123456789abcdef"
	if err := os.WriteFile(filepath.Join(dir, "ci-token"), []byte(fileToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	yml := `
principals:
  - name: viewer
    token_sha256: ` + strings.ToUpper(sha256Hex("viewer-token-0123456789")) + `
    tools: [readonly]
  - name: ci
    token_file: ci-token        # relative to the policy file
    tags: [pool-a, pool-a]
    tools: [httprunner, peek]
  - name: admin
    token: admin-token-0123456789
`
	path := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	pol, err := LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := pol.Principals(); !slices.Equal(got, []string{"viewer", "ci", "admin"}) {
		t.Fatalf("principals %v", got)
	}
	viewer := pol.authenticate("viewer-token-0123456789")
	ci := pol.authenticate(fileToken)
	admin := pol.authenticate("admin-token-0123456789")
	if viewer == nil || ci == nil || admin == nil || viewer.Name != "viewer" || ci.Name != "ci" || admin.Name != "admin" {
		t.Fatalf("authenticate: viewer %v ci %v admin %v", viewer, ci, admin)
	}
	if pol.authenticate("viewer-token-012345678") != nil || pol.authenticate("") != nil {
		t.Fatal("a wrong token authenticated")
	}
	for _, tool := range []string{"screenshot", "get_source", "list_available_devices", "peek"} {
		if !viewer.MayCall(tool) {
			t.Errorf("readonly: viewer may not call %s", tool)
		}
	}
	for _, tool := range []string{"tap_xy", "app_uninstall", "acquire_device", "abort_task"} {
		if viewer.MayCall(tool) {
			t.Errorf("readonly: viewer may call %s", tool)
		}
	}
	if !ci.MayCall("tap_xy") || !ci.MayCall("peek") || ci.MayCall("tap") {
		t.Error("ci: httprunner plus peek, without PhysiClaw's tap")
	}
	if !slices.Equal(ci.Tags, []string{"pool-a"}) || ci.MayUse([]string{"pool-b"}) || !ci.MayUse([]string{"x", "pool-a"}) {
		t.Errorf("ci tags %v", ci.Tags)
	}
	if !admin.MayCall("app_uninstall") || !admin.MayUse(nil) {
		t.Error("admin: no tools or tags given means all")
	}

	js := `{"principals":[{"name":"ci","token_sha256":"` + sha256Hex("json-token-0123456789") + `","tools":["all"],"tags":["lab"]}]}`
	pol, err = ParsePolicy([]byte(js), dir)
	if err != nil {
		t.Fatal(err)
	}
	if p := pol.authenticate("json-token-0123456789"); p == nil || !p.MayCall("tap_xy") || !p.MayUse([]string{"lab"}) {
		t.Fatalf("JSON policy: %+v", p)
	}
}

func TestPolicyRefusesMistakes(t *testing.T) {
	const secret = "secret-token-0123456789"
	hash := sha256Hex(secret)
	for _, c := range []struct{ name, policy, want string }{
		{"empty", ``, "no principals"},
		{"no principals", `principals: []`, "no principals"},
		{"unknown top key", "principal:\n  - name: a\n    token_sha256: " + hash, `in the policy, line 1: unknown key "principal" (the keys are: principals)`},
		{"unknown key", "principals:\n  - name: a\n    token_sha256: " + hash + "\n    tag: [x]",
			`in the policy, line 4: unknown key "tag" (the keys are: name, token_sha256, token_file, token, tags, tools, operator, weight, max_devices, max_queued)`},
		{"not true or false", "principals:\n  - name: a\n    token_sha256: " + hash + "\n    operator: maybe", `line 4: operator: "maybe" is not true or false`},
		{"not YAML", "principals: [\n", "not valid YAML: line 1"},
		{"unknown JSON key", `{"principals":[{"name":"a","token_sha256":"` + hash + `","toolz":[]}]}`, `unknown key "toolz" in the policy (top level: principals;`},
		{"empty name", "principals:\n  - token_sha256: " + hash, "principal #1: name is empty"},
		{"bad name", "principals:\n  - name: 'a b'\n    token_sha256: " + hash, "name must be"},
		{"anonymous", "principals:\n  - name: anonymous\n    token_sha256: " + hash, "choose another name"},
		{"no token", "principals:\n  - name: a", "exactly one of token_sha256"},
		{"two tokens", "principals:\n  - name: a\n    token_sha256: " + hash + "\n    token: " + secret, "exactly one of"},
		{"bad hash", "principals:\n  - name: a\n    token_sha256: abc", "64 hex digits"},
		{"short token", "principals:\n  - name: a\n    token: short", "at least 16"},
		{"zero weight", "principals:\n  - name: a\n    token_sha256: " + hash + "\n    weight: 0", "weight must be above 0"},
		{"NaN weight", "principals:\n  - name: a\n    token_sha256: " + hash + "\n    weight: .nan", "weight must be above 0"},
		{"negative quota", "principals:\n  - name: a\n    token_sha256: " + hash + "\n    max_devices: -1", "max_devices must be between 0"},
		{"huge quota", "principals:\n  - name: a\n    token_sha256: " + hash + "\n    max_queued: 1000001", "max_queued must be between 0"},
		{"missing file", "principals:\n  - name: a\n    token_file: /nonexistent/token", "token_file"},
		{"duplicate name", "principals:\n  - name: a\n    token: " + secret + "\n  - name: a\n    token: other-token-0123456789", `"a" appears twice`},
		{"duplicate token", "principals:\n  - name: a\n    token: " + secret + "\n  - name: b\n    token_sha256: " + hash, `"a" and "b" have the same token`},
		{"unknown tool", "principals:\n  - name: a\n    token: " + secret + "\n    tools: [read-only]", `unknown tool or profile "read-only"`},
		{"empty tag", "principals:\n  - name: a\n    token: " + secret + "\n    tags: ['']", "each tag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePolicy([]byte(c.policy), t.TempDir())
			if err == nil {
				t.Fatalf("accepted:\n%s", c.policy)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q quotes the token", err)
			}
			for _, internal := range []string{"mcp.", "policyFile", "principalEntry", "not found in type", "unmarshal"} {
				if strings.Contains(err.Error(), internal) {
					t.Errorf("error %q speaks of %q", err, internal)
				}
			}
		})
	}
}

// A token file's content never shows in an error, even a bad one.
func TestPolicyErrorsHideTokenFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t"), []byte("has space-0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ParsePolicy([]byte("principals:\n  - name: a\n    token_file: t"), dir)
	if err == nil || strings.Contains(err.Error(), "0123456789") || !strings.Contains(err.Error(), "spaces") {
		t.Fatalf("error %v", err)
	}
}

func FuzzParsePolicy(f *testing.F) {
	f.Add([]byte("principals:\n  - name: a\n    token: 0123456789abcdef0123\n    tools: [readonly]\n    tags: [x]"))
	f.Add([]byte(`{"principals":[{"name":"a","token_sha256":"` + sha256Hex("x") + `"}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		pol, err := ParsePolicy(data, dir)
		if err == nil && len(pol.principals) == 0 {
			t.Fatal("accepted a policy without principals")
		}
	})
}
