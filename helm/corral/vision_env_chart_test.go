package chart_test

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestChartVisionEnvIsItsFlags: every CORRAL_<FLAG> the vision workers get names a flag of
// corral vision, which reads each flag from its variable and ignores any other. They got
// CORRAL_NATS_REPLICAS, which it has no flag for (it makes no store); the gateways and nodes,
// which do, still get it. corral vision's flags are read from its source (cmd/corral/vision.go,
// with the NATS flags of config.go): the command is built only with -tags vision.
func TestChartVisionEnvIsItsFlags(t *testing.T) {
	known := visionFlags(t)
	for _, c := range []valuesCase{
		{name: "vision-env-default"},
		{name: "vision-env-external", sets: []string{"nats.bundled.enabled=false", "nats.external.url=nats://nats.nats.svc:4222",
			"nats.storeReplicas=3"}},
	} {
		m := render(t, c)
		pod := dig(m.must(t, "Deployment", fullname+"-vision"), "spec", "template", "spec").(object)
		_, order := env(container(t, pod, "vision"))
		for _, name := range order {
			flag, ok := strings.CutPrefix(name, "CORRAL_")
			if !ok {
				continue
			}
			if flag = strings.ToLower(strings.ReplaceAll(flag, "_", "-")); !known[flag] {
				t.Errorf("%s: the vision workers get %s, and corral vision has no --%s (its flags: %v)", c.name, name, flag, slices.Sorted(maps.Keys(known)))
			}
		}
		_, _, gw := gateway(t, m)
		node := container(t, dig(m.must(t, "DaemonSet", fullname+"-node"), "spec", "template", "spec").(object), "node")
		for what, ctr := range map[string]object{"gateway": gw, "node": node} {
			if vars, _ := env(ctr); vars["CORRAL_NATS_REPLICAS"] == "" {
				t.Errorf("%s: the %s has no CORRAL_NATS_REPLICAS", c.name, what)
			}
		}
	}
}

// visionFlags are corral vision's flag names: its own (vision.go), the NATS flags
// (natsFlags in config.go) and every command's (newFlags).
func visionFlags(t *testing.T) map[string]bool {
	t.Helper()
	read := func(file string) string {
		b, err := os.ReadFile(filepath.Join(root(t), "cmd", "corral", file))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	vision, config := read("vision.go"), read("config.go")
	body := func(src, start string) string {
		i := strings.Index(src, start)
		if i < 0 {
			t.Fatalf("%q not found in cmd/corral: update visionFlags", start)
		}
		src = src[i:]
		return src[:strings.Index(src, "\n}\n")]
	}
	flagName := regexp.MustCompile(`(?:fs|f)\.(?:String|Int|Bool|Duration|commaList)\("([a-z][a-z0-9-]*)"`)
	known := map[string]bool{}
	for _, src := range []string{body(vision, "func runVision("), body(config, "func (f *flags) natsFlags()"), body(config, "func newFlags(")} {
		for _, m := range flagName.FindAllStringSubmatch(src, -1) {
			known[m[1]] = true
		}
	}
	for _, want := range []string{"nats-url", "nats-password-file", "parallel", "metrics", "log-level"} {
		if !known[want] {
			t.Fatalf("corral vision's flags read from its source lack --%s: update visionFlags (found %v)", want, slices.Sorted(maps.Keys(known)))
		}
	}
	return known
}
