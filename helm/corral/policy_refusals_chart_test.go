package chart_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/mcp"
)

var updatePolicyTools = flag.Bool("update-policy-tools", false,
	"write files/policy-tools.json from the gateway's policy loader (mcp.ParsePolicy)")

// policyToolsFile is the chart's copy of the names a principal's tools may give, and of those
// gateway.tools (corral gateway --tools) takes.
const policyToolsFile = "files/policy-tools.json"

type policyToolsDoc struct {
	About        string   `json:"about"`
	Profiles     []string `json:"profiles"`
	FlagProfiles []string `json:"flag_profiles"`
	Tools        []string `json:"tools"`
}

// wantPolicyTools is what files/policy-tools.json must hold: the profiles the policy loader
// names when it refuses a tool (its own words, so a profile only a policy knows, readonly,
// is in), the profiles --tools takes (mcp.ProfileNames: not readonly), and every tool of the
// gateway's catalog. Each one the loader takes in tools, and --tools alone.
func wantPolicyTools(t *testing.T) []byte {
	t.Helper()
	const cue = "or a profile: "
	_, err := mcp.ParsePolicy([]byte("principals:\n  - {name: p, token_sha256: "+strings.Repeat("ab", 32)+", tools: [no-such-tool]}\n"), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), cue) {
		t.Fatalf("the loader's refusal of an unknown tool does not list the profiles after %q: %v", cue, err)
	}
	_, list, _ := strings.Cut(err.Error(), cue)
	doc := policyToolsDoc{About: "The tool and profile names a principal's tools may give, as the gateway's policy loader " +
		"(mcp/policy.go) takes them, and the profiles gateway.tools may name (flag_profiles, as corral gateway --tools " +
		"takes them: mcp/profiles.go); the templates refuse others (_policy_check.tpl, _gateway_tools_check.tpl). Made by " +
		"make chart-assets (go test ./helm/corral -run TestChartPolicyToolsFile -update-policy-tools); do not edit: that " +
		"test fails when it differs.",
		Profiles: strings.Split(list, ", "), FlagProfiles: mcp.ProfileNames()}
	for _, tool := range mcp.New(nil, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{}).MCPServer().ListTools() {
		doc.Tools = append(doc.Tools, tool.Tool.Name)
	}
	slices.Sort(doc.Tools)
	for _, name := range append(slices.Clone(doc.Profiles), doc.Tools...) {
		if _, err := mcp.ParsePolicy([]byte("principals:\n  - {name: p, token_sha256: "+strings.Repeat("ab", 32)+", tools: ["+name+"]}\n"), t.TempDir()); err != nil {
			t.Errorf("the loader refuses tools: [%s]: %v", name, err)
		}
	}
	for _, name := range append(slices.Clone(doc.FlagProfiles), doc.Tools...) {
		if _, err := mcp.SelectTools(name); err != nil {
			t.Errorf("corral gateway refuses --tools %s: %v", name, err)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestChartPolicyToolsFile: the chart's list of tool and profile names is the gateway's.
// make chart-assets (go test ./helm/corral -run TestChartPolicyToolsFile -update-policy-tools)
// rewrites it.
func TestChartPolicyToolsFile(t *testing.T) {
	want := wantPolicyTools(t)
	file := filepath.Join(chartDir(t), policyToolsFile)
	if *updatePolicyTools {
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("helm/corral/%s is not the policy loader's names (%v): run make chart-assets (go test ./helm/corral -run "+
			"TestChartPolicyToolsFile -update-policy-tools) and commit it\nwant:\n%s", policyToolsFile, err, want)
	}
}

// TestChartRefusesPoliciesGatewaysRefuse: principals every gateway refuses at start (it exits:
// corral gateway --check-config says why) are refused by helm too, with the loader's reason. QA
// saw helm template, lint, kubeconform and the schema pass each of these, and every gateway of
// the release exit. A principal's token is never quoted.
func TestChartRefusesPoliciesGatewaysRefuse(t *testing.T) {
	hash, other := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	const token = "plain-token-of-ci-0123456789"
	for _, c := range []struct {
		name       string
		principals []map[string]any
		helm, load string // in helm's refusal; in the loader's
	}{
		{"anonymous", []map[string]any{{"name": "anonymous", "token_sha256": hash}},
			`auth.policy.principals[0] ("anonymous"): "anonymous" names every caller of a gateway without a policy`, "choose another name"},
		{"a name twice", []map[string]any{{"name": "ci", "token_sha256": hash}, {"name": "ci", "token_sha256": other}},
			`auth.policy.principals[0] and [1] are both named "ci"`, "appears twice"},
		{"a token hash twice", []map[string]any{{"name": "ci", "token_sha256": hash}, {"name": "nightly", "token_sha256": strings.ToUpper(hash)}},
			`auth.policy.principals[1] ("nightly") has the token of [0] ("ci")`, "have the same token"},
		{"a token and its hash", []map[string]any{{"name": "ci", "token": token}, {"name": "nightly", "token_sha256": sha256hex(token)}},
			`auth.policy.principals[1] ("nightly") has the token of [0] ("ci")`, "have the same token"},
		{"an unknown tool", []map[string]any{{"name": "ci", "token_sha256": hash, "tools": []string{"httprunner", "tap_xyz"}}},
			`auth.policy.principals[0] ("ci"): tools: unknown tool or profile "tap_xyz"; give tool names from tools/list or a profile: all, `, "unknown tool or profile"},
		{"a name that starts with a dot", []map[string]any{{"name": ".ci", "token_sha256": hash}},
			"/auth/policy/principals/0/name", "name must be"},
		{"a token with a space", []map[string]any{{"name": "ci", "token": "a token with spaces in it"}},
			"/auth/policy/principals/0/token", "spaces or control characters"},
		{"a tag too long", []map[string]any{{"name": "ci", "token_sha256": hash, "tags": []string{strings.Repeat("t", 65)}}},
			"/auth/policy/principals/0/tags/0", "bytes long"},
	} {
		b, err := json.Marshal(map[string]any{"principals": c.principals})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mcp.ParsePolicy(b, t.TempDir()); err == nil || !strings.Contains(err.Error(), c.load) {
			t.Errorf("%s: the gateway's loader says %v; want %q", c.name, err, c.load)
		}
		list, err := json.Marshal(c.principals)
		if err != nil {
			t.Fatal(err)
		}
		_, err = helm(t, "template", release, chartDir(t), "--set-json", "auth.policy.principals="+string(list))
		if err == nil || !strings.Contains(err.Error(), c.helm) {
			t.Errorf("%s: helm template says %v\nwant an error with %s", c.name, err, c.helm)
		}
		if err != nil && strings.Contains(err.Error(), token) {
			t.Errorf("%s: helm's refusal quotes the token: %v", c.name, err)
		}
	}
	// The same names in --set, as QA gave them, and a policy the gateways take still renders.
	_, err := helm(t, "template", release, chartDir(t), "--set", "auth.policy.principals[0].name=anonymous",
		"--set", "auth.policy.principals[0].token_sha256="+hash)
	if err == nil || !strings.Contains(err.Error(), `choose another name`) {
		t.Errorf("--set name=anonymous: %v", err)
	}
	if _, err := helm(t, "template", release, chartDir(t), "--set-json", `auth.policy.principals=[{"name":"ci","token_sha256":"`+hash+
		`","tools":["readonly","tap_xy"]},{"name":"ops","token":"`+token+`","operator":true}]`); err != nil {
		t.Errorf("a policy the gateways take: %v", err)
	}
}

// sha256hex is a token's token_sha256, as sha256sum prints it.
func sha256hex(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// TestChartRefusesTokenFilesGatewaysCannotRead: a principal's token_file must be a key of
// auth.tokens.existingSecret where the chart mounts it, /etc/corral/tokens/KEY. QA rendered a
// token_file with no such Secret (nothing mounted: every gateway exited "principal "ci":
// token_file: open /etc/corral/tokens/ci.token: no such file"), and a relative one, which the
// gateway reads next to the policy file, where the chart's policy Secret holds no token.
func TestChartRefusesTokenFilesGatewaysCannotRead(t *testing.T) {
	const mounted = "/etc/corral/tokens/ci.token"
	for _, c := range []struct {
		file, secret string
		want         string // in helm's refusal; "": it renders
	}{
		{mounted, "", `auth.policy.principals[0] ("ci"): token_file "/etc/corral/tokens/ci.token": no Secret of token files is mounted; set auth.tokens.existingSecret`},
		{"ci.token", "corral-tokens", `token_file "ci.token" is not in the token files' mount: use /etc/corral/tokens/KEY`},
		{"/etc/corral/tokens/../policy/ci.token", "corral-tokens", "use /etc/corral/tokens/KEY"},
		{"/etc/corral/tokens/sub/ci.token", "corral-tokens", "use /etc/corral/tokens/KEY"},
		{"/var/run/ci.token", "corral-tokens", "use /etc/corral/tokens/KEY"},
		{mounted, "corral-tokens", ""},
	} {
		sets := []string{"auth.policy.principals[0].name=ci", "auth.policy.principals[0].token_file=" + c.file}
		if c.secret != "" {
			sets = append(sets, "auth.tokens.existingSecret="+c.secret)
		}
		_, err := helm(t, append([]string{"template", release, chartDir(t)}, valuesCase{sets: sets}.args()...)...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("--set %v: %v; want it rendered", sets, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("--set %v: %v\nwant an error with %s", sets, err, c.want)
		}
	}
	// What the refused ones do to a gateway: its loader reads a relative token_file next to the
	// policy file, and does not find one that is not there.
	_, err := mcp.ParsePolicy([]byte("principals:\n  - {name: ci, token_file: ci.token}\n"), "/etc/corral/policy")
	if err == nil || !strings.Contains(err.Error(), "/etc/corral/policy/ci.token") {
		t.Errorf("the gateway's loader reads token_file: ci.token as %v; want next to the policy file", err)
	}
}
