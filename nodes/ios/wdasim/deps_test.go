package wdasim_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The simulator depends on the simulated phone and what it is made of; the client on the
// standard library alone. Both build and test without the node runtime (actors, NATS).
func TestDependencies(t *testing.T) {
	const corral = "github.com/corral-farm/corral/"
	for _, tc := range []struct {
		pkg     string
		allowed []string // Corral packages it may import
		stdOnly bool
	}{
		// apk and ipa: the simulated phone names what it installs from the file, as phones do.
		{".", []string{"nodes/sim", "nodes/device", "nodes/uitree", "nodes/android/apk", "nodes/ios/ipa"}, false},
		{"../wda", nil, true},
	} {
		out, err := exec.Command("go", "list", "-deps", tc.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", tc.pkg, err, out)
		}
		self, _ := exec.Command("go", "list", tc.pkg).Output()
		ok := map[string]bool{strings.TrimSpace(string(self)): true}
		for _, a := range tc.allowed {
			ok[corral+a] = true
		}
		for _, dep := range strings.Fields(string(out)) {
			first, _, _ := strings.Cut(dep, "/")
			std := !strings.Contains(first, ".") || strings.HasPrefix(dep, "vendor/")
			switch {
			case strings.HasPrefix(dep, corral) && !ok[dep]:
				t.Errorf("%s depends on %s; of Corral it may import only %v", tc.pkg, dep, tc.allowed)
			case tc.stdOnly && !std && !ok[dep]:
				t.Errorf("%s depends on %s; it needs the standard library only", tc.pkg, dep)
			case strings.Contains(dep, "protoactor") || strings.Contains(dep, "nats-io/"):
				t.Errorf("%s depends on %s, the node runtime", tc.pkg, dep)
			}
		}
	}
}
