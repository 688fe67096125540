package chart_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestChartAssetsWritesEveryGeneratedFile: each chart file a test of this package writes with
// an -update-… flag (files/nats-permissions.json, nats-site-permissions.json, policy-tools.json)
// is written by make chart-assets (scripts/sync-chart-assets.sh), which passes the flag and
// runs the tests that use it. policy-tools.json was not: after adding a tool, make chart-assets
// left it stale, and only its own go test -update-policy-tools line rewrote it.
func TestChartAssetsWritesEveryGeneratedFile(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(root(t), "scripts", "sync-chart-assets.sh"))
	if err != nil {
		t.Fatal(err)
	}
	// Its go test line, continued lines (a backslash at the end) included.
	runs := regexp.MustCompile(`go test \./helm/corral (?:[^\n\\]|\\.|\\\n)*`).FindString(string(script))
	m := regexp.MustCompile(`-run '([^']+)'`).FindStringSubmatch(runs)
	if m == nil {
		t.Fatalf("scripts/sync-chart-assets.sh runs no go test ./helm/corral -run '…': %q", runs)
	}
	run := regexp.MustCompile(m[1])
	users := updateFlagUsers(t)
	if len(users) == 0 {
		t.Fatal("no -update-… flag found in this package's tests")
	}
	for flagName, tests := range users {
		if !regexp.MustCompile(`(^|\s)-` + regexp.QuoteMeta(flagName) + `(\s|$)`).MatchString(runs) {
			t.Errorf("scripts/sync-chart-assets.sh does not pass -%s to go test ./helm/corral: make chart-assets leaves what %v write stale",
				flagName, tests)
		}
		for _, test := range tests {
			if !run.MatchString(test) {
				t.Errorf("scripts/sync-chart-assets.sh's -run %q does not run %s, which -%s makes write its file", m[1], test, flagName)
			}
		}
	}
}

// updateFlagUsers maps each -update-… flag this package's tests define (flag.Bool) to the
// tests that read it.
func updateFlagUsers(t *testing.T) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{} // Go variable → flag name
	var parsed []*ast.File
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok || len(spec.Names) != 1 || len(spec.Values) != 1 {
				return true
			}
			call, ok := spec.Values[0].(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Bool" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok {
				return true
			}
			if name, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(name, "update-") {
				vars[spec.Names[0].Name] = name
			}
			return true
		})
	}
	users := map[string][]string{}
	for _, f := range parsed {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			seen := map[string]bool{}
			ast.Inspect(fn, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && vars[id.Name] != "" && !seen[id.Name] {
					seen[id.Name] = true
					users[vars[id.Name]] = append(users[vars[id.Name]], fn.Name.Name)
				}
				return true
			})
		}
	}
	return users
}
