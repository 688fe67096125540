package deploy_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// composeFile is the part of deploy/compose.yaml the checks read.
type composeFile struct {
	Services map[string]struct {
		Image   string   `yaml:"image"`
		Build   any      `yaml:"build"`
		Command []string `yaml:"command"`
		Ports   []string `yaml:"ports"`
		Volumes []string `yaml:"volumes"`
	} `yaml:"services"`
}

func readCompose(t *testing.T) composeFile {
	t.Helper()
	b, err := os.ReadFile("compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	return c
}

// The compose farm: pinned images, ports on the host's loopback only, mounts that exist, the
// services the issue asks for.
func TestComposeFile(t *testing.T) {
	c := readCompose(t)
	for _, want := range []string{"nats", "gateway", "node-1", "node-2", "prometheus", "grafana"} {
		if _, ok := c.Services[want]; !ok {
			t.Errorf("compose.yaml has no %s service", want)
		}
	}
	for name, s := range c.Services {
		if s.Image == "" || !strings.Contains(s.Image, ":") || strings.HasSuffix(s.Image, ":latest") {
			t.Errorf("%s: image %q is not pinned by tag", name, s.Image)
		}
		for _, p := range s.Ports {
			if host, _, _ := strings.Cut(p, ":"); net.ParseIP(host) == nil || !net.ParseIP(host).IsLoopback() {
				t.Errorf("%s: port %q is published beyond the host's loopback", name, p)
			}
		}
		for _, v := range s.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if strings.HasPrefix(src, ".") {
				if _, err := os.Stat(src); err != nil {
					t.Errorf("%s: mount %q: %v", name, v, err)
				}
			}
		}
	}
	if g := c.Services["grafana"]; !slices.Contains(g.Volumes, "./grafana:/var/lib/grafana/dashboards/corral:ro") {
		t.Errorf("grafana does not mount deploy/grafana where dashboards.yaml looks: %v", g.Volumes)
	}
	b, err := os.ReadFile(filepath.Join("compose", "grafana", "dashboards.yaml"))
	if err != nil || !strings.Contains(string(b), "path: /var/lib/grafana/dashboards/corral") {
		t.Errorf("compose/grafana/dashboards.yaml does not point at the mounted dashboards (%v)", err)
	}
}

// corral itself accepts the commands the compose file runs.
func TestComposeCommandsPassCheckConfig(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "corral")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/corral").CombinedOutput(); err != nil {
		t.Fatalf("build corral: %v\n%s", err, out)
	}
	c := readCompose(t)
	ran := 0
	for name, s := range c.Services {
		if s.Image != "corral:dev" {
			continue
		}
		ran++
		cmd := exec.CommandContext(t.Context(), bin, append(slices.Clone(s.Command), "--check-config")...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "configuration ok") {
			t.Errorf("%s: corral %s --check-config: %v\n%s", name, strings.Join(s.Command, " "), err, out)
		}
	}
	if ran != 3 {
		t.Errorf("checked %d corral services, want the gateway and two nodes", ran)
	}
}

// promtool accepts the compose Prometheus configuration with Corral's rules, and it scrapes
// every corral service on the port that service serves.
func TestComposePrometheusConfig(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatal("promtool is missing: run make setup (Debian package prometheus)")
		}
		t.Skip("promtool is missing (make setup installs Debian's prometheus package)")
	}
	b, err := os.ReadFile(filepath.Join("compose", "prometheus.yml"))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := filepath.Abs(filepath.Join("prometheus", "rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(t.TempDir(), "prometheus.yml")
	cfg := strings.Replace(string(b), "/etc/prometheus/rules/*.yaml", rules, 1)
	if err := os.WriteFile(local, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "check", "config", local).CombinedOutput(); err != nil {
		t.Fatalf("promtool check config: %v\n%s", err, out)
	}
	for name, s := range readCompose(t).Services {
		if s.Image != "corral:dev" {
			continue
		}
		port := "8420"
		if i := slices.Index(s.Command, "--metrics"); i >= 0 {
			_, port, _ = strings.Cut(s.Command[i+1], ":")
		}
		if !strings.Contains(cfg, `"`+name+":"+port+`"`) {
			t.Errorf("prometheus.yml does not scrape %s:%s", name, port)
		}
	}
}
