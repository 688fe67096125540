package chart_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// consoleRoutes are example paths of every route the console registers (mcp/console's
// routes(), read from its source so that a new route is checked without a change here):
// {serial} and the like become "x", a subtree ("/console/static/") gets a file under it.
func consoleRoutes(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root(t), "mcp", "console", "console.go"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, m := range regexp.MustCompile(`c\.mux\.Handle(?:Func)?\("(?:[A-Z]+ )?(/[^"]*)"`).FindAllStringSubmatch(string(src), -1) {
		p := strings.ReplaceAll(regexp.MustCompile(`\{[a-z]+\}`).ReplaceAllString(m[1], "x"), "{$}", "")
		if strings.HasSuffix(p, "/") && p != "/" {
			p += "x"
		}
		paths = append(paths, p)
	}
	if len(paths) < 5 || !slices.Contains(paths, "/") {
		t.Fatalf("read %v as the console's routes from mcp/console/console.go: its routes() changed shape", paths)
	}
	return paths
}

// ingressRoutes reports whether an Ingress path of the given type matches a request path, as
// Kubernetes defines them: Exact is the whole path, Prefix whole path elements.
func ingressRoutes(path, pathType, request string) bool {
	if pathType == "Exact" {
		return request == path
	}
	p := strings.TrimSuffix(path, "/")
	return p == "" || request == p || strings.HasPrefix(request, p+"/")
}

// TestChartIngressConsole: gateway.ingress.console routes every console route through the
// Ingress, and still not /metrics or the probes; the Ingress hosts join --allowed-origins (the
// console's forms send their page's Origin, which the gateway refuses otherwise). Off, the
// Ingress routes /mcp alone.
func TestChartIngressConsole(t *testing.T) {
	routed := func(m manifest) func(string) bool {
		paths := list(dig(m.must(t, "Ingress", fullname+"-gateway"), "spec", "rules", 0, "http", "paths"))
		return func(request string) bool {
			for _, p := range paths {
				if ingressRoutes(str(p["path"]), str(p["pathType"]), request) {
					return true
				}
			}
			return false
		}
	}
	ingress := example(t, "ingress")
	off := routed(render(t, ingress))
	for _, r := range append(consoleRoutes(t), "/metrics") {
		if off(r) {
			t.Errorf("without ingress.console the Ingress routes %s", r)
		}
	}

	on := ingress
	on.name, on.sets = "console", []string{"gateway.ingress.console=true"}
	m := render(t, on)
	routes := routed(m)
	for _, r := range append(consoleRoutes(t), "/mcp") {
		if !routes(r) {
			t.Errorf("with ingress.console the Ingress does not route %s to the gateways", r)
		}
	}
	for _, r := range []string{"/metrics", "/healthz", "/readyz"} {
		if routes(r) {
			t.Errorf("with ingress.console the Ingress routes %s, which stays inside the cluster", r)
		}
	}
	_, pod, gw := gateway(t, m)
	origins := strings.Split(flags(gw)["allowed-origins"], ",")
	if !slices.Contains(origins, "corral.example.com") || !slices.Contains(origins, "https://agents.example.com") {
		t.Errorf("--allowed-origins=%v: want the Ingress host corral.example.com beside the example's own", origins)
	}
	var args []string
	for _, a := range gw["args"].([]any) {
		args = append(args, str(a))
	}
	files := map[string]string{}
	if f, ok := flags(gw)["auth-policy"]; ok {
		_, files[f] = loadPolicy(t, m, pod, gw)
	}
	checkConfig(t, gw, args, files)

	// NOTES.txt gives the console's address: the Ingress's with ingress.console, else the
	// port-forward's.
	dir := notesChart(t)
	if notes := renderNotes(t, dir, on); !strings.Contains(notes, "outside:         https://corral.example.com/\n") {
		t.Errorf("NOTES.txt with ingress.console lacks the console at https://corral.example.com/:\n%s", notes)
	}
	if notes := renderNotes(t, dir, ingress); !strings.Contains(notes, "from here:       http://127.0.0.1:8420/\n") {
		t.Errorf("NOTES.txt without ingress.console lacks the console through the port-forward:\n%s", notes)
	}
}
