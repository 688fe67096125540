package chart_test

import (
	"bytes"
	"strings"
	"testing"
)

// TestChartUpgradeCheckAgainstTheCluster: docs/helm.md checks an upgrade with helm template
// --dry-run=server against the cluster. Two renders without the cluster differ (a new admin
// token and new NATS passwords); rendered against a cluster holding the first install's Secrets
// (a fake API server), the same values give the installed manifest back, byte for byte: the
// gateways' checksum/auth too, which hashed a generated token of its own, so that the first
// upgrade after an install rolled the gateways for no change.
func TestChartUpgradeCheckAgainstTheCluster(t *testing.T) {
	offline := func() []byte {
		out, err := helm(t, "template", release, chartDir(t), "--namespace", namespace)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	installed, again := offline(), offline()
	if bytes.Equal(installed, again) {
		t.Fatal("two offline renders are equal: docs/helm.md says they differ in the generated secrets")
	}
	m := parse(t, installed)
	kubeconfig, _ := fakeKubernetes(t, map[string]object{
		natsAuthSecret:            m.must(t, "Secret", natsAuthSecret),
		fullname + "-admin-token": m.must(t, "Secret", fullname+"-admin-token"),
	})
	out, err := helmWithKubeconfig(t, kubeconfig, "template", release, chartDir(t), "--namespace", namespace, "--dry-run=server")
	if err != nil {
		t.Fatalf("helm template --dry-run=server: %v", err)
	}
	if !bytes.Equal(out, installed) {
		a, b := parse(t, installed), parse(t, out)
		for i := range min(len(a), len(b)) {
			if jsonString(a[i]) != jsonString(b[i]) {
				t.Errorf("%v %v differs from the installed one:\n%s\nwant\n%s", b[i]["kind"], dig(b[i], "metadata", "name"), jsonString(b[i]), jsonString(a[i]))
			}
		}
		t.Errorf("rendered against the cluster, the same values differ from the install (%d objects, %d installed)", len(b), len(a))
	}

	// A changed policy still rolls the gateways.
	checksum := func(m manifest) any {
		deploy, _, _ := gateway(t, m)
		return dig(deploy, "spec", "template", "metadata", "annotations", "checksum/auth")
	}
	policy := valuesCase{name: "policy", sets: []string{"auth.policy.principals[0].name=ci",
		"auth.policy.principals[0].token_sha256=" + strings.Repeat("a", 64)}}
	if before, after := checksum(m), checksum(render(t, policy)); before == nil || before == after {
		t.Errorf("checksum/auth %v with the generated admin, %v with a principal ci: want a change", before, after)
	}
}
