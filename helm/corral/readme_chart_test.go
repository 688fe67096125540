package chart_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestChartReadme: helm show readme prints the chart's README (it printed nothing), which
// gives the install command and points to the guide, from the chart and from its package.
func TestChartReadme(t *testing.T) {
	dir := t.TempDir()
	if _, err := helm(t, "package", chartDir(t), "-d", dir); err != nil {
		t.Fatal(err)
	}
	pkgs, _ := filepath.Glob(filepath.Join(dir, "corral-*.tgz"))
	if len(pkgs) != 1 {
		t.Fatalf("helm package wrote %v", pkgs)
	}
	for _, chart := range []string{chartDir(t), pkgs[0]} {
		out, err := helm(t, "show", "readme", chart)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"helm install corral helm/corral -n corral --create-namespace", "docs/helm.md"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("helm show readme %s lacks %q:\n%s", filepath.Base(chart), want, out)
			}
		}
	}
}
