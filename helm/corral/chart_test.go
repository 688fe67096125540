// Package chart_test checks the Helm chart in this directory with the tools that consume it:
// helm lint and helm template (v3.22.0) for the default values and for every values example,
// kubeconform -strict on what they render, against schemas generated offline from the
// Kubernetes OpenAPI document and the Prometheus Operator CRDs (scripts/k8s-schemas), and
// assertions on the rendered objects. scripts/setup.sh (make setup) installs the tools into
// .tools/; without them the tests skip, or fail under CORRAL_REQUIRE_TOOLS=1 (make test).
package chart_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"gopkg.in/yaml.v3"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes"
)

const (
	release   = "corral"
	namespace = "corral"
)

// root is the repository's root, from this package's directory (helm/corral).
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("repository root not found from %s: %v", dir, err)
	}
	return dir
}

func chartDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// missing skips the test, or fails it under CORRAL_REQUIRE_TOOLS (make test).
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
		t.Fatalf(format+": run make setup (it installs what the tests need)", args...)
	}
	t.Skipf(format+"; make setup installs it", args...)
}

// tool finds a command on PATH or in .tools/bin.
func tool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	p := filepath.Join(root(t), ".tools", "bin", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	missing(t, "%s is not installed", name)
	return ""
}

// schemas returns kubeconform's -schema-location arguments and the Kubernetes version of the
// schemas scripts/setup.sh generated into .tools/k8s-schemas.
func schemas(t *testing.T) (locations []string, version string) {
	t.Helper()
	dir := filepath.Join(root(t), ".tools", "k8s-schemas")
	found, _ := filepath.Glob(filepath.Join(dir, "v*-standalone-strict"))
	if len(found) != 1 {
		missing(t, "no Kubernetes JSON schemas in %s (found %d versions)", dir, len(found))
	}
	version = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(found[0]), "v"), "-standalone-strict")
	crds := filepath.Join(dir, "crds", "{{ .Group }}", "{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json")
	return []string{dir, crds}, version
}

// helm runs helm with its own, empty configuration.
func helm(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.CommandContext(t.Context(), tool(t, "helm"), args...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+home+"/cache", "HELM_CONFIG_HOME="+home+"/config",
		"HELM_DATA_HOME="+home+"/data", "KUBECONFIG="+home+"/kubeconfig")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, errors.New(strings.TrimSpace(stderr.String()) + " (" + err.Error() + ")")
	}
	return out, nil
}

// valuesCase is one set of values the chart must take: its defaults or a documented example.
type valuesCase struct {
	name  string
	files []string // -f
	sets  []string // --set
}

func (c valuesCase) args() []string {
	var a []string
	for _, f := range c.files {
		a = append(a, "-f", f)
	}
	for _, s := range c.sets {
		a = append(a, "--set", s)
	}
	return a
}

// cases are the defaults and every file of examples/ (a new example is checked without a
// change here).
func cases(t *testing.T) []valuesCase {
	t.Helper()
	examples, err := filepath.Glob(filepath.Join(chartDir(t), "examples", "*.yaml"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no values examples in examples/: %v", err)
	}
	cs := []valuesCase{{name: "default"}}
	for _, e := range examples {
		cs = append(cs, valuesCase{name: strings.TrimSuffix(filepath.Base(e), ".yaml"), files: []string{e}})
	}
	return cs
}

func example(t *testing.T, name string) valuesCase {
	t.Helper()
	for _, c := range cases(t) {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no example %s.yaml in examples/", name)
	return valuesCase{}
}

// render runs helm template and returns the objects it printed.
func render(t *testing.T, c valuesCase) manifest {
	t.Helper()
	out, err := helm(t, append([]string{"template", release, chartDir(t), "--namespace", namespace}, c.args()...)...)
	if err != nil {
		t.Fatalf("helm template with %s values: %v", c.name, err)
	}
	return parse(t, out)
}

// object is one decoded Kubernetes object (or any YAML mapping).
type object = map[string]any

type manifest []object

func parse(t *testing.T, b []byte) manifest {
	t.Helper()
	var m manifest
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var o object
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return m
		}
		if err != nil {
			t.Fatalf("rendered manifest is not YAML: %v\n%s", err, b)
		}
		if o != nil {
			m = append(m, o)
		}
	}
}

// find returns the object of that kind and name, or nil.
func (m manifest) find(kind, name string) object {
	for _, o := range m {
		if o["kind"] == kind && dig(o, "metadata", "name") == name {
			return o
		}
	}
	return nil
}

func (m manifest) must(t *testing.T, kind, name string) object {
	t.Helper()
	o := m.find(kind, name)
	if o == nil {
		t.Fatalf("no %s %s rendered; have %v", kind, name, m.names())
	}
	return o
}

func (m manifest) all(kind string) []object {
	var out []object
	for _, o := range m {
		if o["kind"] == kind {
			out = append(out, o)
		}
	}
	return out
}

func (m manifest) names() []string {
	var out []string
	for _, o := range m {
		out = append(out, o["kind"].(string)+"/"+str(dig(o, "metadata", "name")))
	}
	return out
}

// dig follows keys (string) and indexes (int) into decoded YAML; nil when a step is missing.
func dig(v any, steps ...any) any {
	for _, s := range steps {
		switch k := s.(type) {
		case string:
			m, ok := v.(object)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func list(v any) []object {
	l, _ := v.([]any)
	out := make([]object, 0, len(l))
	for _, e := range l {
		if o, ok := e.(object); ok {
			out = append(out, o)
		}
	}
	return out
}

// workloads returns the pod specs of the Deployments, DaemonSets and StatefulSets, by "Kind/name".
func (m manifest) workloads() map[string]object {
	out := map[string]object{}
	for _, o := range m {
		switch o["kind"] {
		case "Deployment", "DaemonSet", "StatefulSet":
			spec, _ := dig(o, "spec", "template", "spec").(object)
			out[o["kind"].(string)+"/"+str(dig(o, "metadata", "name"))] = spec
		}
	}
	return out
}

func container(t *testing.T, pod object, name string) object {
	t.Helper()
	for _, c := range list(pod["containers"]) {
		if c["name"] == name {
			return c
		}
	}
	t.Fatalf("no container %q in the pod", name)
	return nil
}

// flags returns a container's --name=value arguments (value "" for a bare --name).
func flags(c object) map[string]string {
	out := map[string]string{}
	for _, a := range c["args"].([]any) {
		s := str(a)
		if !strings.HasPrefix(s, "--") {
			continue
		}
		k, v, _ := strings.Cut(strings.TrimPrefix(s, "--"), "=")
		out[k] = v
	}
	return out
}

// env returns a container's environment: plain values, and "secret:NAME/KEY" or
// "field:PATH" for the ones the kubelet fills in. order lists the names as they come.
func env(c object) (vars map[string]string, order []string) {
	vars = map[string]string{}
	for _, e := range list(c["env"]) {
		name := str(e["name"])
		order = append(order, name)
		switch {
		case dig(e, "valueFrom", "secretKeyRef") != nil:
			vars[name] = "secret:" + str(dig(e, "valueFrom", "secretKeyRef", "name")) + "/" + str(dig(e, "valueFrom", "secretKeyRef", "key"))
		case dig(e, "valueFrom", "fieldRef") != nil:
			vars[name] = "field:" + str(dig(e, "valueFrom", "fieldRef", "fieldPath"))
		default:
			vars[name] = str(e["value"])
		}
	}
	return vars, order
}

// secretFile returns the Secret, and its key, behind a file path inside a container: the
// volume mounted at the file's directory must be a Secret volume.
func secretFile(t *testing.T, pod, c object, file string) (secret, key string) {
	t.Helper()
	dir, key := path.Split(file)
	for _, vm := range list(c["volumeMounts"]) {
		if strings.TrimSuffix(str(vm["mountPath"]), "/")+"/" != dir {
			continue
		}
		for _, v := range list(pod["volumes"]) {
			if v["name"] == vm["name"] {
				name := str(dig(v, "secret", "secretName"))
				if name == "" {
					t.Fatalf("%s is on volume %s, which is not a Secret", file, v["name"])
				}
				return name, key
			}
		}
		t.Fatalf("volume %s mounted at %s is not in the pod", vm["name"], dir)
	}
	t.Fatalf("container %s mounts nothing at %s (for %s)", c["name"], dir, file)
	return "", ""
}

// secretData returns one key of a rendered Secret.
func (m manifest) secretData(t *testing.T, name, key string) []byte {
	t.Helper()
	s := m.must(t, "Secret", name)
	enc, ok := dig(s, "data", key).(string)
	if !ok {
		t.Fatalf("Secret %s has no key %s", name, key)
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		t.Fatalf("Secret %s key %s: %v", name, key, err)
	}
	return b
}

// fullname is the chart's base name for this test's release.
const fullname = "corral"

// TestChartAssetsMatchDeploy: the dashboards and rules the chart ships are deploy/'s.
func TestChartAssetsMatchDeploy(t *testing.T) {
	r, chart := root(t), chartDir(t)
	fix := "the chart's copies differ from deploy/: run make chart-assets (scripts/sync-chart-assets.sh) and commit both"
	src, _ := filepath.Glob(filepath.Join(r, "deploy", "grafana", "*.json"))
	dst, _ := filepath.Glob(filepath.Join(chart, "dashboards", "*.json"))
	base := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = filepath.Base(p)
		}
		return out
	}
	if len(src) == 0 || !slices.Equal(base(src), base(dst)) {
		t.Fatalf("%s: deploy/grafana has %v, helm/corral/dashboards has %v", fix, base(src), base(dst))
	}
	same := func(a, b string) {
		t.Helper()
		x, errA := os.ReadFile(a)
		y, errB := os.ReadFile(b)
		if errA != nil || errB != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: %s and %s (%v, %v)", fix, a, b, errA, errB)
		}
	}
	for _, f := range src {
		same(f, filepath.Join(chart, "dashboards", filepath.Base(f)))
	}
	same(filepath.Join(r, "deploy", "prometheus", "rules.yaml"), filepath.Join(chart, "rules", "rules.yaml"))
}

// TestChartLintsRendersAndValidates: helm lint --strict, helm template and kubeconform -strict
// for the defaults and every example, every object checked against a schema.
func TestChartLintsRendersAndValidates(t *testing.T) {
	kubeconform := tool(t, "kubeconform")
	locations, version := schemas(t)
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			if out, err := helm(t, append([]string{"lint", "--strict", chartDir(t), "--namespace", namespace}, c.args()...)...); err != nil {
				t.Fatalf("helm lint: %v\n%s", err, out)
			}
			out, err := helm(t, append([]string{"template", release, chartDir(t), "--namespace", namespace}, c.args()...)...)
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			m := parse(t, out)
			args := []string{"-strict", "-summary", "-output", "json", "-kubernetes-version", version}
			for _, l := range locations {
				args = append(args, "-schema-location", l)
			}
			cmd := exec.CommandContext(t.Context(), kubeconform, append(args, "-")...)
			cmd.Stdin = bytes.NewReader(out)
			res, err := cmd.CombinedOutput()
			var report struct {
				Resources []struct {
					Kind, Name, Status, Msg string
				}
				Summary struct{ Valid, Invalid, Errors, Skipped int }
			}
			if jerr := json.Unmarshal(res, &report); jerr != nil {
				t.Fatalf("kubeconform: %v, %v\n%s", err, jerr, res)
			}
			for _, r := range report.Resources {
				t.Errorf("kubeconform: %s %s (%s): %s", r.Kind, r.Name, r.Status, r.Msg)
			}
			if s := report.Summary; err != nil || s.Valid != len(m) || s.Invalid+s.Errors+s.Skipped != 0 {
				t.Fatalf("kubeconform -strict (Kubernetes %s): %+v for %d objects (%v)", version, s, len(m), err)
			}
		})
	}
}

// TestChartSecurityContexts: every container of every example runs non-root on a read-only
// root file system without privileges, except the adb sidecar, which must say it is privileged.
func TestChartSecurityContexts(t *testing.T) {
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			for name, pod := range render(t, c).workloads() {
				psc, _ := pod["securityContext"].(object)
				if pod["automountServiceAccountToken"] != false {
					t.Errorf("%s mounts a service account token; Corral does not call the Kubernetes API", name)
				}
				for _, ctr := range append(list(pod["initContainers"]), list(pod["containers"])...) {
					where := name + " container " + str(ctr["name"])
					sc, _ := ctr["securityContext"].(object)
					if sc["readOnlyRootFilesystem"] != true {
						t.Errorf("%s: readOnlyRootFilesystem is not true", where)
					}
					if ctr["name"] == "adb" {
						// Claiming USB devices needs it; values.yaml says so at node.adb.securityContext.
						if sc["privileged"] != true {
							t.Errorf("%s: the adb sidecar is expected privileged (node.adb.securityContext)", where)
						}
						continue
					}
					nonRoot := sc["runAsNonRoot"] == true || (sc["runAsNonRoot"] == nil && psc["runAsNonRoot"] == true)
					user := sc["runAsUser"]
					if user == nil {
						user = psc["runAsUser"]
					}
					if !nonRoot || user == 0 {
						t.Errorf("%s: not held to a non-root user (runAsNonRoot %v, runAsUser %v)", where, nonRoot, user)
					}
					if sc["allowPrivilegeEscalation"] != false || sc["privileged"] == true {
						t.Errorf("%s: may escalate privileges", where)
					}
					if drop, _ := dig(sc, "capabilities", "drop").([]any); !slices.Contains(drop, any("ALL")) {
						t.Errorf("%s: capabilities are not dropped", where)
					}
					if ctr["resources"] == nil {
						t.Errorf("%s: no resources", where)
					}
				}
			}
		})
	}
}

// gateway checks what every gateway Deployment must have and returns it with its pod spec.
func gateway(t *testing.T, m manifest) (deploy, pod, ctr object) {
	t.Helper()
	deploy = m.must(t, "Deployment", fullname+"-gateway")
	pod = dig(deploy, "spec", "template", "spec").(object)
	ctr = container(t, pod, "gateway")
	f := flags(ctr)
	if ctr["args"].([]any)[0] != "gateway" {
		t.Errorf("gateway runs %v, want corral gateway", ctr["args"])
	}
	port := dig(ctr, "ports", 0, "containerPort")
	if want := fmt.Sprint("0.0.0.0:", port); f["http"] != want {
		t.Errorf("--http=%s, want %s (the container port, on every interface)", f["http"], want)
	}
	if _, err := mcp.SelectTools(f["tools"]); err != nil {
		t.Errorf("--tools=%s: %v", f["tools"], err)
	}
	if _, err := mcp.ParseRate(f["rate-limit"]); err != nil {
		t.Errorf("--rate-limit=%s: %v", f["rate-limit"], err)
	}
	if o, ok := f["allowed-origins"]; ok {
		if err := mcp.ValidateOrigins(strings.Split(o, ",")); err != nil {
			t.Errorf("--allowed-origins=%s: %v", o, err)
		}
	}
	_, policy := f["auth-policy"]
	_, insecure := f["insecure-no-auth"]
	if policy == insecure {
		t.Errorf("a gateway on 0.0.0.0 needs exactly one of --auth-policy and --insecure-no-auth; args %v", ctr["args"])
	}
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz", "startupProbe": "/healthz"} {
		if got := dig(ctr, probe, "httpGet", "path"); got != path || dig(ctr, probe, "httpGet", "port") != "http" {
			t.Errorf("gateway %s: GET %v on port %v, want %s on http", probe, got, dig(ctr, probe, "httpGet", "port"), path)
		}
	}
	if dig(ctr, "resources", "requests") == nil || dig(ctr, "resources", "limits") == nil {
		t.Errorf("gateway resources: %v", ctr["resources"])
	}
	svc := m.must(t, "Service", fullname+"-gateway")
	if !subset(dig(svc, "spec", "selector"), dig(deploy, "spec", "template", "metadata", "labels")) {
		t.Errorf("the gateway Service does not select the gateway pods")
	}
	return deploy, pod, ctr
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// subset says whether every label of sel is in labels.
func subset(sel, labels any) bool {
	s, _ := sel.(object)
	l, _ := labels.(object)
	if len(s) == 0 {
		return false
	}
	for k, v := range s {
		if l[k] != v {
			return false
		}
	}
	return true
}

// loadPolicy checks that the policy --auth-policy names comes from a rendered Secret mounted
// there, and that Corral loads it (token files resolved through their Secret mounts too; a
// token in a Secret the chart does not make gets a stand-in).
func loadPolicy(t *testing.T, m manifest, pod, ctr object) (*mcp.Policy, string) {
	t.Helper()
	file := flags(ctr)["auth-policy"]
	secret, key := secretFile(t, pod, ctr, file)
	var policy struct {
		Principals []map[string]any `yaml:"principals"`
	}
	if err := yaml.Unmarshal(m.secretData(t, secret, key), &policy); err != nil {
		t.Fatalf("policy in Secret %s: %v", secret, err)
	}
	dir := t.TempDir()
	for i, p := range policy.Principals {
		tf, ok := p["token_file"].(string)
		if !ok {
			continue
		}
		s, k := secretFile(t, pod, ctr, tf)
		token := []byte("stand-in-token-of-" + k) // a Secret of one's own (auth.tokens.existingSecret)
		if m.find("Secret", s) != nil {
			token = m.secretData(t, s, k)
		}
		local := filepath.Join(dir, "token-"+k)
		if err := os.WriteFile(local, token, 0o600); err != nil {
			t.Fatal(err)
		}
		policy.Principals[i]["token_file"] = local
	}
	b, err := yaml.Marshal(policy)
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(local, b, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := mcp.LoadPolicy(local)
	if err != nil {
		t.Fatalf("the chart's policy (Secret %s) does not load: %v\n%s", secret, err, b)
	}
	return p, local
}

// nodeID runs the node container's command through /bin/sh with a stand-in corral that
// prints its arguments, and returns the --node-id it was given for a Kubernetes node name.
func nodeID(t *testing.T, ctr object, nodeName string) string {
	t.Helper()
	command := ctr["command"].([]any)
	if len(command) < 3 || command[0] != "/bin/sh" {
		t.Fatalf("node command %v: want /bin/sh -c SCRIPT", command)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "corral"), []byte("#!/bin/sh\nprintf '%s\\n' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var argv []string
	for _, a := range append(command[1:], ctr["args"].([]any)...) {
		argv = append(argv, str(a))
	}
	cmd := exec.CommandContext(t.Context(), "/bin/sh", argv...)
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "NODE_NAME=" + nodeName}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node command: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if lines[0] != "node" {
		t.Fatalf("node command runs corral %v, want corral node", lines)
	}
	for _, l := range lines {
		if id, ok := strings.CutPrefix(l, "--node-id="); ok {
			if !nodes.ValidID(id) {
				t.Errorf("node name %q gives node id %q, which corral node refuses", nodeName, id)
			}
			return id
		}
	}
	t.Fatalf("node command passes no --node-id: %v", lines)
	return ""
}

// natsConfig parses the bundled NATS's configuration with nats-server's own parser.
func natsConfig(t *testing.T, m manifest, environ map[string]string) *server.Options {
	t.Helper()
	cm := m.must(t, "ConfigMap", fullname+"-nats-config")
	file := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(file, []byte(str(dig(cm, "data", "nats.conf"))), 0o600); err != nil {
		t.Fatal(err)
	}
	// The servers' passwords come from the NATS auth Secret, when the chart makes one.
	if s := m.find("Secret", fullname+"-nats-auth"); s != nil {
		for role := range dig(s, "data").(object) {
			t.Setenv("NATS_PASSWORD_"+strings.ToUpper(role), string(m.secretData(t, fullname+"-nats-auth", role)))
		}
	}
	for k, v := range environ {
		t.Setenv(k, v)
	}
	opts, err := server.ProcessConfigFile(file)
	if err != nil {
		t.Fatalf("nats-server refuses the chart's configuration: %v", err)
	}
	return opts
}

// TestChartDefaults holds the default values to what the issue asks of the chart.
func TestChartDefaults(t *testing.T) {
	m := render(t, valuesCase{name: "default"})

	// Gateways: 2 replicas, probes, a PDB, the policy from a Secret.
	deploy, pod, gw := gateway(t, m)
	if dig(deploy, "spec", "replicas") != 2 {
		t.Errorf("gateway replicas %v, want 2", dig(deploy, "spec", "replicas"))
	}
	p, _ := loadPolicy(t, m, pod, gw)
	if p == nil {
		t.Fatal("no policy")
	}
	if _, ok := flags(gw)["insecure-no-auth"]; ok {
		t.Error("the defaults turn auth off")
	}
	if f := flags(gw)["auth-policy"]; f != "/etc/corral/policy/policy.yaml" {
		t.Errorf("--auth-policy=%s", f)
	}
	if m.find("Secret", fullname+"-admin-token") == nil {
		t.Error("no generated admin token Secret")
	}
	pdb := m.must(t, "PodDisruptionBudget", fullname+"-gateway")
	if dig(pdb, "spec", "maxUnavailable") != 1 || !subset(dig(pdb, "spec", "selector", "matchLabels"), dig(deploy, "spec", "template", "metadata", "labels")) {
		t.Errorf("gateway PDB %v does not cover the gateways with maxUnavailable 1", pdb["spec"])
	}
	for _, kind := range []string{"HorizontalPodAutoscaler", "Ingress", "ServiceMonitor", "PrometheusRule"} {
		if len(m.all(kind)) != 0 {
			t.Errorf("the defaults render a %s", kind)
		}
	}

	// NATS: 3 JetStream servers in a cluster, on volumes, found through a headless Service.
	sts := m.must(t, "StatefulSet", fullname+"-nats")
	if dig(sts, "spec", "replicas") != 3 || dig(sts, "spec", "podManagementPolicy") != "Parallel" {
		t.Errorf("NATS StatefulSet: replicas %v, podManagementPolicy %v; want 3, Parallel", dig(sts, "spec", "replicas"), dig(sts, "spec", "podManagementPolicy"))
	}
	headless := m.must(t, "Service", fullname+"-nats-headless")
	if dig(sts, "spec", "serviceName") != fullname+"-nats-headless" || dig(headless, "spec", "clusterIP") != "None" {
		t.Errorf("the StatefulSet's serviceName %v is not a headless Service", dig(sts, "spec", "serviceName"))
	}
	if dig(sts, "spec", "volumeClaimTemplates", 0, "metadata", "name") != "data" ||
		dig(sts, "spec", "volumeClaimTemplates", 0, "spec", "resources", "requests", "storage") != "10Gi" {
		t.Errorf("NATS volume claims: %v", dig(sts, "spec", "volumeClaimTemplates"))
	}
	nats := container(t, dig(sts, "spec", "template", "spec").(object), "nats")
	if dig(nats, "livenessProbe", "httpGet", "path") != "/healthz?js-enabled-only=true" {
		t.Errorf("NATS liveness probe %v", nats["livenessProbe"])
	}
	opts := natsConfig(t, m, map[string]string{"SERVER_NAME": fullname + "-nats-1"})
	if !opts.JetStream || opts.StoreDir != "/data" || opts.ServerName != fullname+"-nats-1" {
		t.Errorf("NATS: JetStream %v in %q as %q; want JetStream in /data, the pod's name", opts.JetStream, opts.StoreDir, opts.ServerName)
	}
	if opts.Cluster.Name != "corral" || opts.Cluster.Port != 6222 || len(opts.Routes) != 3 {
		t.Errorf("NATS cluster %q on %d with %d routes; want corral on 6222 with 3", opts.Cluster.Name, opts.Cluster.Port, len(opts.Routes))
	}
	for i, r := range opts.Routes {
		want := []string{"corral-nats-0", "corral-nats-1", "corral-nats-2"}[i] + ".corral-nats-headless.corral.svc.cluster.local:6222"
		if r.Host != want {
			t.Errorf("route %d to %s, want %s", i, r.Host, want)
		}
	}
	for _, ctr := range []object{gw, container(t, dig(m.must(t, "DaemonSet", fullname+"-node"), "spec", "template", "spec").(object), "node")} {
		vars, _ := env(ctr)
		if vars["CORRAL_NATS_URL"] != "nats://corral-nats.corral.svc.cluster.local:4222" || vars["CORRAL_NATS_REPLICAS"] != "3" {
			t.Errorf("%s: CORRAL_NATS_URL %q, CORRAL_NATS_REPLICAS %q", ctr["name"], vars["CORRAL_NATS_URL"], vars["CORRAL_NATS_REPLICAS"])
		}
	}
	if m.find("Service", fullname+"-nats") == nil || m.find("PodDisruptionBudget", fullname+"-nats") == nil {
		t.Error("no NATS client Service or PodDisruptionBudget")
	}

	// Nodes: on labelled, possibly tainted device hosts, with an adb sidecar seeing USB.
	ds := m.must(t, "DaemonSet", fullname+"-node")
	npod := dig(ds, "spec", "template", "spec").(object)
	if dig(npod, "nodeSelector", "corral.farm/devices") != "true" || dig(npod, "tolerations", 0, "key") != "corral.farm/devices" {
		t.Errorf("node pods: nodeSelector %v, tolerations %v", npod["nodeSelector"], npod["tolerations"])
	}
	node := container(t, npod, "node")
	if vars, _ := env(node); vars["NODE_NAME"] != "field:spec.nodeName" {
		t.Errorf("NODE_NAME is %q, want the downward API's spec.nodeName", vars["NODE_NAME"])
	}
	for name, want := range map[string]string{
		"pi-lab-1": "pi-lab-1",
		"ip-10-0-3-17.eu-west-1.compute.internal":   "ip-10-0-3-17-eu-west-1-compute-internal",
		strings.Repeat("a", 70) + ".example.com":    strings.Repeat("a", 64),
		"gke-farm-pool-1-5f2c.europe-west4-a.c.lab": "gke-farm-pool-1-5f2c-europe-west4-a-c-lab",
	} {
		if got := nodeID(t, node, name); got != want {
			t.Errorf("node %s: --node-id=%s, want %s", name, got, want)
		}
	}
	nf := flags(node)
	if nf["adb"] != "127.0.0.1:5037" || nf["metrics"] != "0.0.0.0:8421" {
		t.Errorf("node flags %v", nf)
	}
	adb := container(t, npod, "adb")
	if cmd := jsonString(adb["command"]); cmd != `["adb","-P","5037","server","nodaemon"]` {
		t.Errorf("adb sidecar runs %s", cmd)
	}
	usb := false
	for _, v := range list(npod["volumes"]) {
		usb = usb || dig(v, "hostPath", "path") == "/dev/bus/usb"
	}
	if !usb {
		t.Error("no /dev/bus/usb hostPath volume for the adb sidecar")
	}
	if svc := m.must(t, "Service", fullname+"-node"); dig(svc, "spec", "clusterIP") != "None" {
		t.Error("the node metrics Service is not headless")
	}

	// Dashboards: one ConfigMap per deploy/grafana file, labelled for the sidecar.
	files, _ := filepath.Glob(filepath.Join(chartDir(t), "dashboards", "*.json"))
	dash := 0
	for _, cm := range m.all("ConfigMap") {
		if dig(cm, "metadata", "labels", "grafana_dashboard") != "1" {
			continue
		}
		dash++
		for k, v := range dig(cm, "data").(object) {
			b, err := os.ReadFile(filepath.Join(chartDir(t), "dashboards", k))
			if err != nil || strings.TrimRight(string(b), "\n") != v {
				t.Errorf("dashboard ConfigMap %v key %s is not dashboards/%s (%v)", dig(cm, "metadata", "name"), k, k, err)
			}
			if !json.Valid([]byte(str(v))) {
				t.Errorf("dashboard %s is not JSON", k)
			}
		}
	}
	if dash != len(files) {
		t.Errorf("%d dashboard ConfigMaps for %d dashboards", dash, len(files))
	}
}

func TestChartExampleBundledNATSWithAuth(t *testing.T) {
	m := render(t, example(t, "bundled-nats-with-auth"))
	_, pod, gw := gateway(t, m)
	if p, _ := loadPolicy(t, m, pod, gw); p == nil {
		t.Fatal("no policy")
	}
	if m.find("Secret", fullname+"-admin-token") != nil {
		t.Error("an admin token is generated although the values give principals")
	}
	// NATS: a user per role (the default), each pod with its own role's password.
	a := renderedNATSAuth(t, example(t, "bundled-nats-with-auth"))
	opts := natsConfig(t, a.m, a.environ(t))
	if len(opts.Users) != len(broker.Roles) || opts.Username != "" {
		t.Errorf("NATS users: %d, single user %q; want one per role", len(opts.Users), opts.Username)
	}
	a.podUser(t, "Deployment/"+fullname+"-gateway", broker.RoleGateway)
	a.podUser(t, "DaemonSet/"+fullname+"-node", broker.RoleNode)
}

func TestChartExampleExternalNATS(t *testing.T) {
	m := render(t, example(t, "external-nats"))
	if len(m.all("StatefulSet")) != 0 || m.find("ConfigMap", fullname+"-nats-config") != nil {
		t.Error("the bundled NATS is rendered although nats.bundled.enabled is false")
	}
	_, pod, gw := gateway(t, m)
	vars, _ := env(gw)
	if !strings.HasPrefix(vars["CORRAL_NATS_URL"], "tls://nats-0.nats.nats.svc:4222,") || vars["CORRAL_NATS_REPLICAS"] != "3" {
		t.Errorf("CORRAL_NATS_URL %q, CORRAL_NATS_REPLICAS %q", vars["CORRAL_NATS_URL"], vars["CORRAL_NATS_REPLICAS"])
	}
	for envVar, want := range map[string]string{"CORRAL_NATS_CREDS": "corral-nats-creds/nats.creds", "CORRAL_NATS_TLS_CA": "corral-nats-ca/ca.crt"} {
		s, k := secretFile(t, pod, gw, vars[envVar])
		if s+"/"+k != want {
			t.Errorf("%s=%s is Secret %s key %s, want %s", envVar, vars[envVar], s, k, want)
		}
	}
}

func TestChartExamplePrometheusOperator(t *testing.T) {
	m := render(t, example(t, "prometheus-operator"))
	for _, component := range []string{"gateway", "node"} {
		sm := m.must(t, "ServiceMonitor", fullname+"-"+component)
		svc := m.must(t, "Service", fullname+"-"+component)
		if !subset(dig(sm, "spec", "selector", "matchLabels"), dig(svc, "metadata", "labels")) {
			t.Errorf("ServiceMonitor %s does not select Service %s", component, component)
		}
		port := dig(sm, "spec", "endpoints", 0, "port")
		if dig(svc, "spec", "ports", 0, "name") != port || dig(sm, "spec", "endpoints", 0, "path") != "/metrics" {
			t.Errorf("ServiceMonitor %s scrapes port %v, the Service has %v", component, port, dig(svc, "spec", "ports"))
		}
		if dig(sm, "metadata", "labels", "release") != "kube-prometheus-stack" {
			t.Errorf("ServiceMonitor %s lacks the release label", component)
		}
	}
	rules, err := os.ReadFile(filepath.Join(root(t), "deploy", "prometheus", "rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var want object
	if err := yaml.Unmarshal(rules, &want); err != nil {
		t.Fatal(err)
	}
	pr := m.must(t, "PrometheusRule", fullname)
	if got := dig(pr, "spec", "groups"); !reflect.DeepEqual(normal(got), normal(want["groups"])) {
		t.Errorf("the PrometheusRule's groups are not deploy/prometheus/rules.yaml's")
	}
	for _, cm := range m.all("ConfigMap") {
		if dig(cm, "metadata", "labels", "grafana_dashboard") == "1" && dig(cm, "metadata", "namespace") != "monitoring" {
			t.Errorf("dashboard %v not in Grafana's namespace", dig(cm, "metadata", "name"))
		}
	}
}

// normal makes YAML-decoded values comparable (numbers as JSON numbers).
func normal(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func TestChartExampleDemoSimulated(t *testing.T) {
	m := render(t, example(t, "demo-simulated"))
	gateway(t, m)
	ds := m.must(t, "DaemonSet", fullname+"-node")
	pod := dig(ds, "spec", "template", "spec").(object)
	node := container(t, pod, "node")
	if f := flags(node); f["sim"] != "4" || f["adb"] != "off" {
		t.Errorf("demo node flags %v: want --sim=4 --adb=off", f)
	}
	if len(list(pod["containers"])) != 1 || pod["nodeSelector"] != nil {
		t.Errorf("demo node pod: %d containers, nodeSelector %v; want no adb sidecar, every host", len(list(pod["containers"])), pod["nodeSelector"])
	}
	if dig(m.must(t, "StatefulSet", fullname+"-nats"), "spec", "replicas") != 1 {
		t.Error("demo NATS is not one server")
	}
	opts := natsConfig(t, m, map[string]string{"SERVER_NAME": "corral-nats-0"})
	if !opts.JetStream || opts.Cluster.Port != 0 {
		t.Errorf("one NATS server: JetStream %v, cluster port %d; want JetStream, no cluster", opts.JetStream, opts.Cluster.Port)
	}
	if m.find("PodDisruptionBudget", fullname+"-nats") != nil || m.find("PodDisruptionBudget", fullname+"-gateway") != nil {
		t.Error("PodDisruptionBudgets in the demo (one server, one gateway: a drain would block)")
	}
	// docs/helm.md and the example's comment name the vision workers the demo runs.
	if v := m.find("Deployment", fullname+"-vision"); v == nil || dig(v, "spec", "replicas") != 2 {
		t.Errorf("demo vision workers: %v; docs/helm.md says two", v)
	}
}

func TestChartExampleIngress(t *testing.T) {
	m := render(t, example(t, "ingress"))
	deploy, _, _ := gateway(t, m)
	if _, ok := dig(deploy, "spec").(object)["replicas"]; ok {
		t.Error("the Deployment sets replicas although the HPA owns them")
	}
	hpa := m.must(t, "HorizontalPodAutoscaler", fullname+"-gateway")
	if dig(hpa, "spec", "scaleTargetRef", "name") != fullname+"-gateway" || dig(hpa, "spec", "maxReplicas") != 8 {
		t.Errorf("HPA %v", hpa["spec"])
	}
	ing := m.must(t, "Ingress", fullname+"-gateway")
	paths := list(dig(ing, "spec", "rules", 0, "http", "paths"))
	if len(paths) != 1 || paths[0]["path"] != "/mcp" || dig(paths[0], "backend", "service", "name") != fullname+"-gateway" ||
		dig(paths[0], "backend", "service", "port", "name") != "http" {
		t.Errorf("Ingress paths %v: want /mcp only, to the gateway Service's http port", paths)
	}
}

// TestChartRefusesBadValues: contradictory or malformed values stop helm with a message that
// says what to change, before anything reaches a cluster.
func TestChartRefusesBadValues(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"auth.insecureNoAuth=true", "auth.policy.existingSecret=mine"}, "choose one"},
		{[]string{"nats.bundled.enabled=false"}, "nats.external.url is required"},
		{[]string{"nats.bundled.replicas=2"}, "/nats/bundled/replicas"},
		{[]string{"gateway.rateLimit=fast"}, "/gateway/rateLimit"},
		{[]string{"gateway.replica=3"}, "'replica' not allowed"},
		{[]string{"vision.replicas=-1"}, "/vision/replicas"},
		{[]string{"vision.timeout=soon"}, "/vision/timeout"},
		{[]string{"node.leaseTTL=5 minutes"}, "/node/leaseTTL"},
		{[]string{"site.name=paris"}, "site.hub.urls is empty"},
		{[]string{"site.name=paris", "site.hub.urls={nats-leaf://hub:7422}", "hub.sites={tokyo}"}, "an edge site or its hub, not both"},
		{[]string{"site.name=par.is"}, "/site/name"},
		{[]string{"site.name=paris", "site.hub.urls={nats-leaf://leaf:pw@hub:7422}"}, "/site/hub/urls"},
		// An Ingress without rules (kubeconform: /spec/rules: got null); NOTES.txt's first host
		// (error calling first: nil pointer).
		{[]string{"gateway.ingress.enabled=true", "gateway.ingress.hosts=null"}, "at '/gateway/ingress': missing property 'hosts'"},
		// HorizontalPodAutoscalers the API server refuses.
		{[]string{"gateway.autoscaling.enabled=true", "gateway.autoscaling.minReplicas=11"},
			"gateway.autoscaling.minReplicas (11) is more than gateway.autoscaling.maxReplicas (10): Kubernetes refuses"},
		{[]string{"vision.autoscaling.enabled=true", "vision.autoscaling.minReplicas=4", "vision.autoscaling.maxReplicas=3"},
			"vision.autoscaling.minReplicas (4) is more than vision.autoscaling.maxReplicas (3)"},
	} {
		_, err := helm(t, append([]string{"template", release, chartDir(t)}, valuesCase{sets: c.sets}.args()...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--set %v: %v; want an error with %q", c.sets, err, c.want)
		}
	}
	_, err := helm(t, "template", release, chartDir(t), "--set-json", `gateway.ingress={"enabled":true,"hosts":[]}`)
	if want := "at '/gateway/ingress/hosts': minItems: got 0, want 1"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("gateway.ingress.hosts=[]: %v; want an error with %q", err, want)
	}
	// Turning auth off is possible, and explicit.
	m := render(t, valuesCase{name: "insecure", sets: []string{"auth.insecureNoAuth=true"}})
	_, _, gw := gateway(t, m)
	if _, ok := flags(gw)["insecure-no-auth"]; !ok || len(m.all("Secret")) != 1 || m.find("Secret", fullname+"-nats-auth") == nil {
		t.Errorf("auth.insecureNoAuth: args %v, Secrets %v (want the NATS users' only)", gw["args"], m.names())
	}
}

// notesChart is a copy of the chart with a template that prints NOTES.txt into a ConfigMap, so
// that helm's engine renders it (helm template does not print notes, helm install needs a
// cluster).
func notesChart(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corral")
	if err := os.CopyFS(dir, os.DirFS(chartDir(t))); err != nil {
		t.Fatal(err)
	}
	probe := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include \"corral/templates/NOTES.txt\" . | quote }}\n"
	if err := os.WriteFile(filepath.Join(dir, "templates", "zz-notes-probe.yaml"), []byte(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// renderNotes is NOTES.txt as the values of c render it, in a chart copy from notesChart.
func renderNotes(t *testing.T, dir string, c valuesCase) string {
	t.Helper()
	out, err := helm(t, append([]string{"template", release, dir, "--namespace", namespace, "--show-only", "templates/zz-notes-probe.yaml"}, c.args()...)...)
	if err != nil {
		t.Fatalf("NOTES.txt: %v", err)
	}
	return str(dig(parse(t, out)[0], "data", "notes"))
}

// TestChartNotes renders NOTES.txt for the defaults and every example.
func TestChartNotes(t *testing.T) {
	dir := notesChart(t)
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			notes := renderNotes(t, dir, c)
			url := "http://127.0.0.1:8420/mcp"
			if c.name == "ingress" {
				url = "https://corral.example.com/mcp"
			}
			for _, want := range []string{
				"http://corral-gateway.corral.svc.cluster.local:8420/mcp",
				`"url": "` + url + `"`,
				"corral mcp-stdio --gateway " + url + " --token-file corral.token",
				"Authorization",
			} {
				if !strings.Contains(notes, want) {
					t.Errorf("NOTES.txt lacks %q:\n%s", want, notes)
				}
			}
			// The NATS admin's credentials for natscli, as TestChartNATSAuthEnforced uses them.
			if !strings.HasPrefix(c.name, "external-") {
				for _, want := range []string{"get secret corral-nats-auth -o jsonpath='{.data.admin}' | base64 -d",
					"nats context add corral-admin --server nats://127.0.0.1:4222 --user admin --inbox-prefix " + broker.InboxPrefix("admin")} {
					if !strings.Contains(notes, want) {
						t.Errorf("NOTES.txt lacks %q:\n%s", want, notes)
					}
				}
			}
			if c.name != "ingress" && !strings.Contains(notes, "kubectl -n corral port-forward svc/corral-gateway 8420:8420") {
				t.Errorf("NOTES.txt does not say how to reach the gateway:\n%s", notes)
			}
		})
	}
}

// TestChartNotesNATS: NOTES.txt names the bundled NATS's users (vision's with the workers) and
// warns when Corral reaches an external NATS as nobody.
func TestChartNotesNATS(t *testing.T) {
	dir := notesChart(t)
	external := []string{"nats.bundled.enabled=false", "nats.external.url=nats://nats.nats.svc:4222"}
	const warning = "WARNING: Corral connects to it with no user, credentials or client certificate"
	for _, c := range []struct {
		name         string
		sets         []string
		want, unwant []string
	}{
		{"bundled", nil, []string{"node, gateway, operator, admin, vision."}, []string{warning}},
		{"bundled-no-vision", []string{"vision.enabled=false"}, []string{"node, gateway, operator, admin."}, []string{"vision"}},
		{"external-nobody", external, []string{warning}, nil},
		{"external-users", append(slices.Clone(external), "nats.external.auth.existingSecret=corral-nats-users"),
			[]string{"Secret corral-nats-users (keys gateway, node, vision)"}, []string{warning}},
		{"external-users-no-vision", append(slices.Clone(external), "nats.external.auth.existingSecret=corral-nats-users", "vision.enabled=false"),
			[]string{"Secret corral-nats-users (keys gateway, node)"}, []string{warning}},
		{"external-creds", append(slices.Clone(external), "nats.external.credentials.existingSecret=corral-nats-creds"),
			[]string{"credentials files from the Secret corral-nats-creds"}, []string{warning}},
		{"external-mtls", append(slices.Clone(external), "nats.external.tls.existingSecret=ca", "nats.external.tls.clientCert=true"),
			nil, []string{warning}},
	} {
		t.Run(c.name, func(t *testing.T) {
			notes := renderNotes(t, dir, valuesCase{name: c.name, sets: c.sets})
			nats := notes[strings.Index(notes, "\nNATS\n"):]
			for _, w := range c.want {
				if !strings.Contains(nats, w) {
					t.Errorf("NOTES.txt lacks %q:\n%s", w, nats)
				}
			}
			for _, w := range c.unwant {
				if strings.Contains(nats, w) {
					t.Errorf("NOTES.txt says %q:\n%s", w, nats)
				}
			}
		})
	}
}

// corralBin builds cmd/corral once for the whole package (with -race, like test/, to share the
// build cache).
var corralBin = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "corral-chart-test-")
	if err != nil {
		return "", err
	}
	corralBinDir = dir
	bin := filepath.Join(dir, "corral")
	out, err := exec.Command("go", "build", "-race", "-o", bin, "../../cmd/corral").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/corral: %w\n%s", err, out)
	}
	return bin, nil
})

// corralBinDir is where corralBin built corral, "" until a test asked for it: a run of tests
// that need none (go test -run) builds none.
var corralBinDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if corralBinDir != "" {
		_ = os.RemoveAll(corralBinDir)
	}
	os.Exit(code)
}

// checkConfig runs corral with a container's flags and plain CORRAL_* environment and
// --check-config: the flags exist and their values are ones corral takes. files maps paths
// inside the pod to local copies.
func checkConfig(t *testing.T, ctr object, args []string, files map[string]string) {
	t.Helper()
	bin, err := corralBin()
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && files[v] != "" {
			args[i] = k + "=" + files[v]
		}
	}
	if files == nil {
		files = map[string]string{}
	}
	vars, _ := env(ctr)
	cmd := exec.CommandContext(t.Context(), bin, append(args, "--check-config")...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
	for k, v := range vars {
		fromKubelet := strings.HasPrefix(v, "secret:") || strings.HasPrefix(v, "field:")
		if strings.HasPrefix(k, "CORRAL_") && !fromKubelet {
			if (strings.HasSuffix(k, "_FILE") || strings.HasPrefix(v, "/etc/corral/")) && files[v] == "" {
				// A Secret's key the pod mounts (the NATS password): --check-config reads it, so
				// a stand-in of one line takes its place here.
				stand, body := filepath.Join(t.TempDir(), filepath.Base(v)), "stand-in\n"
				if k == "CORRAL_NATS_TLS_CA" {
					body = standInCA(t)
				}
				if k == "CORRAL_NATS_CREDS" { // read as a user JWT and an nkey seed (NATS docs' example seed)
					body = "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.stand-in\n------END NATS USER JWT------\n\n" +
						"-----BEGIN USER NKEY SEED-----\nSUAMK2FG4MI6UE3ACF3FK3OIQBCEIEZV7NSWFFEW63UXMRLFM2XLAXK4GY\n------END USER NKEY SEED------\n"
				}
				if err := os.WriteFile(stand, []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
				files[v] = stand
			}
			if files[v] != "" {
				v = files[v]
			}
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "configuration ok") {
		t.Errorf("corral %s --check-config with %v: %v\n%s", strings.Join(args, " "), cmd.Env, err, out)
	}
}

// TestChartArgsPassCheckConfig: corral itself accepts the flags and environment the chart
// gives the gateways and the nodes, for the defaults and every example.
func TestChartArgsPassCheckConfig(t *testing.T) {
	for _, c := range cases(t) {
		t.Run(c.name, func(t *testing.T) {
			m := render(t, c)
			_, pod, gw := gateway(t, m)
			files := map[string]string{}
			if f, ok := flags(gw)["auth-policy"]; ok {
				_, files[f] = loadPolicy(t, m, pod, gw)
			}
			var args []string
			for _, a := range gw["args"].([]any) {
				args = append(args, str(a))
			}
			checkConfig(t, gw, args, files)

			ds := m.find("DaemonSet", fullname+"-node")
			if ds == nil {
				return
			}
			node := container(t, dig(ds, "spec", "template", "spec").(object), "node")
			args = []string{"node", "--node-id=" + nodeID(t, node, "usb-host-1.lab.example.com")}
			for _, a := range node["args"].([]any) {
				args = append(args, str(a))
			}
			checkConfig(t, node, args, nil)
		})
	}
}

// TestChartNodeProbes: the node's probes GET paths a real corral node serves on its metrics
// port: started with the chart's flags against a NATS, it answers each with 200.
func TestChartNodeProbes(t *testing.T) {
	m := render(t, valuesCase{name: "default"})
	pod := dig(m.must(t, "DaemonSet", fullname+"-node"), "spec", "template", "spec").(object)
	node := container(t, pod, "node")
	want := map[string]string{"startupProbe": "/healthz", "livenessProbe": "/healthz", "readinessProbe": "/readyz"}
	for probe, path := range want {
		if got := dig(node, probe, "httpGet", "path"); got != path || dig(node, probe, "httpGet", "port") != "metrics" {
			t.Errorf("node %s: GET %v on port %v, want %s on metrics", probe, got, dig(node, probe, "httpGet", "port"), path)
		}
	}

	bin, err := corralBin()
	if err != nil {
		t.Fatal(err)
	}
	ns := runServer(t, &server.Options{JetStream: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	// The chart's flags, but on loopback, without adb, with one simulated phone.
	args := []string{"node", "--node-id=probe-host", "--nats-url=" + ns.ClientURL(), "--metrics=" + addr, "--adb=off", "--sim=1"}
	for _, a := range node["args"].([]any) {
		if f := str(a); !strings.HasPrefix(f, "--node-id") && !strings.HasPrefix(f, "--metrics") && !strings.HasPrefix(f, "--adb") && f != "node" {
			args = append(args, f)
		}
	}
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	client := http.Client{Timeout: 5 * time.Second}
	for probe, path := range want {
		deadline := time.Now().Add(time.Minute)
		for {
			code := 0
			if resp, err := client.Get("http://" + addr + path); err == nil {
				code = resp.StatusCode
				resp.Body.Close()
			}
			if code == http.StatusOK {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s: GET %s answers %d, want 200\n%s", probe, path, code, out.String())
			}
			time.Sleep(50 * time.Millisecond) // polling a deadline: the node is starting
		}
	}
}

// TestChartVisionProbes: the vision workers' probes GET the paths corral vision serves on its
// metrics port, as the node's: /healthz (started, alive: not restarted for NATS's outage) and
// /readyz (503 while its NATS connection is down). A chart test cannot start the worker (it needs
// cgo, OpenCV and Tesseract); cmd/corral's TestVisionServesItsProbes (-tags vision) starts one.
func TestChartVisionProbes(t *testing.T) {
	m := render(t, valuesCase{name: "vision-default"})
	pod := dig(m.must(t, "Deployment", fullname+"-vision"), "spec", "template", "spec").(object)
	vision := container(t, pod, "vision")
	want := map[string]string{"startupProbe": "/healthz", "livenessProbe": "/healthz", "readinessProbe": "/readyz"}
	for probe, path := range want {
		if got := dig(vision, probe, "httpGet", "path"); got != path || dig(vision, probe, "httpGet", "port") != "metrics" {
			t.Errorf("vision %s: GET %v on port %v, want %s on metrics", probe, got, dig(vision, probe, "httpGet", "port"), path)
		}
	}
	if port := dig(vision, "ports", 0, "containerPort"); flags(vision)["metrics"] != fmt.Sprint("0.0.0.0:", port) {
		t.Errorf("vision --metrics=%s, want 0.0.0.0:%v (the probes' port)", flags(vision)["metrics"], port)
	}
}

// TestChartVisionWorkers: the vision workers are a Deployment of corral vision that scales
// (replicas, or an HPA), as the vision NATS user (bundled or external), with a metrics Service
// for the ServiceMonitor; vision.enabled=false leaves them out.
func TestChartVisionWorkers(t *testing.T) {
	m := render(t, valuesCase{name: "vision-default"})
	d := m.must(t, "Deployment", fullname+"-vision")
	if dig(d, "spec", "replicas") != 2 {
		t.Errorf("vision replicas %v, want 2", dig(d, "spec", "replicas"))
	}
	pod := dig(d, "spec", "template", "spec").(object)
	ctr := container(t, pod, "vision")
	if a, _ := ctr["args"].([]any); len(a) == 0 || a[0] != "vision" {
		t.Errorf("vision args %v: want corral vision", ctr["args"])
	}
	f := flags(ctr)
	if f["metrics"] != "0.0.0.0:8422" || f["parallel"] != "0" || f["timeout"] != "20s" {
		t.Errorf("vision flags %v", f)
	}
	if img := str(ctr["image"]); !strings.HasPrefix(img, "ghcr.io/corral-farm/corral-vision:") {
		t.Errorf("vision image %s", img)
	}
	vars, _ := env(ctr)
	if vars["CORRAL_NATS_USER"] != "vision" {
		t.Errorf("vision NATS user %q", vars["CORRAL_NATS_USER"])
	}
	if s := m.must(t, "Service", fullname+"-vision"); dig(s, "spec", "clusterIP") != "None" {
		t.Errorf("vision Service %v: want headless, for metrics", s["spec"])
	}
	if m.find("HorizontalPodAutoscaler", fullname+"-vision") != nil {
		t.Error("an HPA for the workers without vision.autoscaling.enabled")
	}

	m = render(t, valuesCase{name: "vision-hpa", sets: []string{"vision.autoscaling.enabled=true", "vision.autoscaling.maxReplicas=12",
		"monitoring.prometheusOperator=true"}})
	hpa := m.must(t, "HorizontalPodAutoscaler", fullname+"-vision")
	if dig(hpa, "spec", "maxReplicas") != 12 || dig(hpa, "spec", "scaleTargetRef", "name") != fullname+"-vision" {
		t.Errorf("vision HPA %v", hpa["spec"])
	}
	if r := dig(m.must(t, "Deployment", fullname+"-vision"), "spec", "replicas"); r != nil {
		t.Errorf("the vision Deployment sets replicas %v under an HPA", r)
	}
	if sm := m.find("ServiceMonitor", fullname+"-vision"); sm == nil {
		t.Error("no ServiceMonitor for the vision workers")
	}

	m = render(t, example(t, "external-nats-users"))
	vars, _ = env(container(t, dig(m.must(t, "Deployment", fullname+"-vision"), "spec", "template", "spec").(object), "vision"))
	if vars["CORRAL_NATS_USER"] != "vision" || vars["CORRAL_NATS_URL"] != "nats://nats.nats.svc:4222" {
		t.Errorf("vision workers on an external NATS: %v", vars)
	}

	m = render(t, valuesCase{name: "vision-off", sets: []string{"vision.enabled=false"}})
	for _, kind := range []string{"Deployment", "Service", "NetworkPolicy"} {
		if m.find(kind, fullname+"-vision") != nil {
			t.Errorf("vision.enabled=false still renders %s/%s-vision", kind, fullname)
		}
	}
}
