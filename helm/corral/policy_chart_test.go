package chart_test

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestChartPolicyTakesFairSharesAndOperator: the principals of the values take every key of
// Corral's policy (mcp/policy.go), fair shares and operator too, and the chart writes them into
// the policy the gateways read as given: Corral loads it and corral gateway --check-config takes
// it. The schema once allowed only name, the token keys, tags and tools, so helm refused the
// fair shares docs/auth.md describes. Values out of the loader's ranges are refused by helm.
func TestChartPolicyTakesFairSharesAndOperator(t *testing.T) {
	m := render(t, example(t, "shared-farm"))
	_, pod, gw := gateway(t, m)
	file := flags(gw)["auth-policy"]
	secret, key := secretFile(t, pod, gw, file)
	var policy struct {
		Principals []map[string]any `yaml:"principals"`
	}
	if err := yaml.Unmarshal(m.secretData(t, secret, key), &policy); err != nil {
		t.Fatalf("policy in Secret %s: %v", secret, err)
	}
	byName := map[string]map[string]any{}
	for _, p := range policy.Principals {
		byName[str(p["name"])] = p
	}
	for name, want := range map[string]map[string]any{
		"nightly":      {"max_devices": 20, "max_queued": 200},
		"release-team": {"weight": 2},
		"ops":          {"operator": true},
		"ci":           {"token_file": "/etc/corral/tokens/ci.token"},
	} {
		for k, v := range want {
			if got := byName[name][k]; got != v {
				t.Errorf("the rendered policy's principal %s has %s %v (%T), want %v", name, k, got, got, v)
			}
		}
	}
	// The CI's token file is where the chart mounts auth.tokens.existingSecret.
	if s, k := secretFile(t, pod, gw, "/etc/corral/tokens/ci.token"); s != "corral-tokens" || k != "ci.token" {
		t.Errorf("/etc/corral/tokens/ci.token is key %s of Secret %s, want ci.token of corral-tokens", k, s)
	}
	pol, local := loadPolicy(t, m, pod, gw)
	if got := strings.Join(pol.Principals(), ","); got != "ci,nightly,release-team,dashboard,ops" {
		t.Errorf("Corral loads the principals %s", got)
	}
	var args []string
	for _, a := range gw["args"].([]any) {
		args = append(args, str(a))
	}
	checkConfig(t, gw, args, map[string]string{file: local})

	hash := strings.Repeat("ab", 32)
	for _, c := range []struct {
		principal map[string]any
		want      string
	}{
		{map[string]any{"weight": 0}, "/auth/policy/principals/0/weight"},
		{map[string]any{"weight": 101}, "/auth/policy/principals/0/weight"},
		{map[string]any{"max_devices": -1}, "/auth/policy/principals/0/max_devices"},
		{map[string]any{"max_devices": 1.5}, "/auth/policy/principals/0/max_devices"},
		{map[string]any{"max_queued": 100001}, "/auth/policy/principals/0/max_queued"},
		{map[string]any{"operator": "yes"}, "/auth/policy/principals/0/operator"},
		{map[string]any{"weigth": 2}, "'weigth' not allowed"},
	} {
		c.principal["name"], c.principal["token_sha256"] = "team", hash
		b, err := json.Marshal([]any{c.principal})
		if err != nil {
			t.Fatal(err)
		}
		_, err = helm(t, "template", release, chartDir(t), "--set-json", "auth.policy.principals="+string(b))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("principal %s: %v; want an error with %q", b, err, c.want)
		}
	}
}
