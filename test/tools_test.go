package test

import (
	"os"
	"os/exec"
	"testing"
)

// tool finds a command-line tool the project's setup installs; without it the test is
// skipped, unless CORRAL_REQUIRE_TOOLS is set (make test sets it), when it fails.
func tool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s is not installed: run make setup (it installs what the tests need)", name)
		}
		t.Skipf("%s not installed; make setup installs it", name)
	}
	return path
}
