package deploy_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"gopkg.in/yaml.v3"

	"github.com/corral-farm/corral/broker/embedded"
)

// composeFile is the part of deploy/compose.yaml the checks read.
type composeFile struct {
	Services map[string]struct {
		Image   string   `yaml:"image"`
		Build   any      `yaml:"build"`
		Command []string `yaml:"command"`
		Ports   []string `yaml:"ports"`
		Volumes []string `yaml:"volumes"`
		Stop    string   `yaml:"stop_grace_period"`
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

// A stopped gateway drains its calls for its --drain-timeout (25 s by default, cmd/corral
// gatewaydrain.go): docker must not kill it sooner (its own default is 10 s).
func TestComposeGatewayHasItsDrain(t *testing.T) {
	const drain = 25 * time.Second
	s := readCompose(t).Services["gateway"]
	grace, err := time.ParseDuration(s.Stop)
	if err != nil || grace <= drain {
		t.Fatalf("the gateway's stop_grace_period %q is not longer than its drain (%s): docker would cut its calls", s.Stop, drain)
	}
}

// The compose farm: pinned images, ports on the host's loopback only, mounts that exist, the
// services the issue asks for.
func TestComposeFile(t *testing.T) {
	c := readCompose(t)
	for _, want := range []string{"nats", "gateway", "node-1", "node-2", "vision", "prometheus", "grafana"} {
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
	// The vision worker: the real one (Dockerfile.vision builds corral with the vision tag), on
	// the NATS the nodes use.
	v, node := c.Services["vision"], c.Services["node-1"]
	if b, _ := v.Build.(map[string]any); b["dockerfile"] != "deploy/Dockerfile.vision" || v.Image != visionImage {
		t.Errorf("vision: build %v, image %q; want deploy/Dockerfile.vision as %s", v.Build, v.Image, visionImage)
	}
	if len(v.Command) == 0 || v.Command[0] != "vision" || flag(v.Command, "--nats-url") != flag(node.Command, "--nats-url") {
		t.Errorf("vision: command %q; want corral vision on the nodes' NATS (%s)", v.Command, flag(node.Command, "--nats-url"))
	}
	if g := c.Services["grafana"]; !slices.Contains(g.Volumes, "./grafana:/var/lib/grafana/dashboards/corral:ro") {
		t.Errorf("grafana does not mount deploy/grafana where dashboards.yaml looks: %v", g.Volumes)
	}
	b, err := os.ReadFile(filepath.Join("compose", "grafana", "dashboards.yaml"))
	if err != nil || !strings.Contains(string(b), "path: /var/lib/grafana/dashboards/corral") {
		t.Errorf("compose/grafana/dashboards.yaml does not point at the mounted dashboards (%v)", err)
	}
}

// The images of the compose file's corral services: corral, and corral built with vision.
const (
	corralImage = "corral:dev"
	visionImage = "corral-vision:dev"
)

// flag returns the value after name in a command, or "".
func flag(cmd []string, name string) string {
	if i := slices.Index(cmd, name); i >= 0 && i+1 < len(cmd) {
		return cmd[i+1]
	}
	return ""
}

// corral itself accepts the commands the compose file runs: the gateway's and the nodes' as
// corral:dev is built, the vision worker's as Dockerfile.vision builds it (with the vision tag:
// cgo, OpenCV and Tesseract, which make setup installs).
func TestComposeCommandsPassCheckConfig(t *testing.T) {
	build := func(tags ...string) string {
		bin := filepath.Join(t.TempDir(), "corral")
		args := append([]string{"build"}, tags...)
		if out, err := exec.Command("go", append(args, "-o", bin, "../cmd/corral")...).CombinedOutput(); err != nil {
			t.Fatalf("build corral %v: %v\n%s", tags, err, out)
		}
		return bin
	}
	bins := map[string]string{corralImage: build()}
	if exec.Command("pkg-config", "--exists", "opencv4", "tesseract").Run() == nil {
		bins[visionImage] = build("-tags", "vision")
	} else if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
		t.Fatal("OpenCV or Tesseract is missing: run make setup (the vision worker's command is checked with them)")
	} else {
		t.Log("OpenCV or Tesseract is missing: the vision worker's command is not checked (make setup installs them)")
	}
	c := readCompose(t)
	ran := map[string]int{}
	for name, s := range c.Services {
		bin, ok := bins[s.Image]
		if !ok {
			continue
		}
		ran[s.Image]++
		cmd := exec.CommandContext(t.Context(), bin, append(slices.Clone(s.Command), "--check-config")...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "configuration ok") {
			t.Errorf("%s: corral %s --check-config: %v\n%s", name, strings.Join(s.Command, " "), err, out)
		}
	}
	if ran[corralImage] != 3 {
		t.Errorf("checked %d corral services, want the gateway and two nodes", ran[corralImage])
	}
	if _, ok := bins[visionImage]; ok && ran[visionImage] != 1 {
		t.Errorf("checked %d vision workers, want one", ran[visionImage])
	}
}

// NATS's configuration, as nats-server parses it: JetStream in the volume, and messages as
// large as the embedded server takes (a vision request carries a screenshot and a template).
func TestComposeNATSConfig(t *testing.T) {
	c := readCompose(t)
	n := c.Services["nats"]
	if flag(n.Command, "--config") != "/etc/nats/nats.conf" || !slices.Contains(n.Volumes, "./compose/nats.conf:/etc/nats/nats.conf:ro") {
		t.Fatalf("nats: command %q, volumes %q; want it run with compose/nats.conf", n.Command, n.Volumes)
	}
	opts, err := server.ProcessConfigFile(filepath.Join("compose", "nats.conf"))
	if err != nil {
		t.Fatalf("compose/nats.conf: %v", err)
	}
	if opts.MaxPayload != embedded.MaxPayload {
		t.Errorf("max_payload %d, want %d (the embedded server's): vision requests carry whole screenshots", opts.MaxPayload, embedded.MaxPayload)
	}
	if !opts.JetStream || opts.StoreDir != "/data" || !slices.Contains(n.Volumes, "nats-data:/data") {
		t.Errorf("JetStream %v in %q (volumes %q); want it in the nats-data volume at /data", opts.JetStream, opts.StoreDir, n.Volumes)
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
		if s.Image != corralImage && s.Image != visionImage {
			continue
		}
		port := "8420"
		if m := flag(s.Command, "--metrics"); m != "" {
			_, port, _ = strings.Cut(m, ":")
		}
		if !strings.Contains(cfg, `"`+name+":"+port+`"`) {
			t.Errorf("prometheus.yml does not scrape %s:%s", name, port)
		}
	}
}
