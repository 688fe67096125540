package broker

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The places in docs/operations.md that broker's errors and comments point to exist, as a
// heading or a bold paragraph lead (**During a cut.**): a renamed section left an error
// pointing to one called Upgrading.
func TestOperationsSectionsNamedExist(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	places := map[string]bool{}
	lead := regexp.MustCompile(`^\*\*([^*]+?)\.?\*\*`)
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "#") {
			places[strings.TrimSpace(strings.TrimLeft(line, "#"))] = true
		}
		if m := lead.FindStringSubmatch(line); m != nil {
			places[m[1]] = true
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`docs/operations\.md, ([^)]+)\)`)
	named := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(string(src), -1) {
			named++
			if !places[m[1]] {
				t.Errorf("%s points to docs/operations.md's %q, which has no such heading or bold paragraph lead", f, m[1])
			}
		}
	}
	if named == 0 {
		t.Fatal("no reference to docs/operations.md found: the pattern is stale")
	}
}
