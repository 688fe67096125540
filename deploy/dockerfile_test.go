// Package deploy_test checks the container images' Dockerfiles for what the chart and the
// design rely on, without building them (no container engine is needed): every base image
// pinned by tag, a non-root final user that matches the chart's runAsUser, the corral binary
// static (CGO_ENABLED=0) except in the vision image (built with the vision tag, running corral
// vision), adb only in the node image.
package deploy_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line int
	cmd  string // upper case: FROM, RUN, USER, ...
	args string
}

// stage is one FROM and what follows it.
type stage struct {
	image, name string
	body        []instruction
}

// parse reads a Dockerfile: comments and blank lines dropped, "\" continuations joined.
func parse(t *testing.T, file string) []stage {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var stages []stage
	var cur strings.Builder
	start := 0
	flush := func() {
		text := strings.TrimSpace(cur.String())
		cur.Reset()
		if text == "" {
			return
		}
		cmd, args, _ := strings.Cut(text, " ")
		in := instruction{start, strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			f := strings.Fields(in.args)
			s := stage{image: f[0]}
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				s.name = f[2]
			}
			stages = append(stages, s)
			return
		}
		if len(stages) == 0 {
			if in.cmd != "ARG" {
				t.Fatalf("%s:%d: %s before the first FROM", file, in.line, in.cmd)
			}
			return
		}
		stages[len(stages)-1].body = append(stages[len(stages)-1].body, in)
	}
	for i, l := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if body, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(trimmed)
		flush()
	}
	flush()
	if len(stages) == 0 {
		t.Fatalf("%s has no FROM", file)
	}
	return stages
}

func (s stage) all(cmd string) []instruction {
	var out []instruction
	for _, in := range s.body {
		if in.cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

var pinned = regexp.MustCompile(`^[a-z0-9./_-]+(:[A-Za-z0-9._-]+)?(@sha256:[0-9a-f]{64})?$`)

// checkCommon holds every Dockerfile to pinned bases and a non-root final user, and returns
// that user's uid.
func checkCommon(t *testing.T, file string, stages []stage) int {
	t.Helper()
	names := map[string]bool{}
	for _, s := range stages {
		if names[s.image] {
			names[s.name] = true
			continue // FROM an earlier stage
		}
		tagged := strings.Contains(s.image, "@sha256:") || strings.Contains(s.image[strings.LastIndex(s.image, "/")+1:], ":")
		if !pinned.MatchString(s.image) || !tagged || strings.HasSuffix(s.image, ":latest") || strings.Contains(s.image, "$") {
			t.Errorf("%s: FROM %s: pin the base image by a tag (not latest) or a digest", file, s.image)
		}
		if s.name != "" {
			names[s.name] = true
		}
	}
	final := stages[len(stages)-1]
	users := final.all("USER")
	if len(users) == 0 {
		t.Fatalf("%s: the final stage sets no USER: the image would run as root", file)
	}
	user, _, _ := strings.Cut(users[len(users)-1].args, ":")
	uid, err := strconv.Atoi(user)
	if err != nil || uid == 0 {
		t.Fatalf("%s: USER %s: want a numeric non-root uid (Kubernetes runAsNonRoot can check only a number)", file, user)
	}
	entry := final.all("ENTRYPOINT")
	if len(entry) != 1 || !strings.Contains(entry[0].args, `"/usr/local/bin/corral"`) {
		t.Errorf("%s: ENTRYPOINT %v, want [\"/usr/local/bin/corral\"]", file, entry)
	}
	copied := false
	for _, c := range final.all("COPY") {
		copied = copied || (strings.HasPrefix(c.args, "--from=") && strings.HasSuffix(c.args, " /usr/local/bin/corral"))
	}
	if !copied {
		t.Errorf("%s: the final stage does not COPY the built corral to /usr/local/bin/corral", file)
	}
	return uid
}

// goBuild returns the RUN that builds corral.
func goBuild(t *testing.T, file string, stages []stage) instruction {
	t.Helper()
	for _, s := range stages {
		for _, r := range s.all("RUN") {
			if strings.Contains(r.args, "go build") && strings.Contains(r.args, "./cmd/corral") {
				return r
			}
		}
	}
	t.Fatalf("%s: no RUN builds ./cmd/corral", file)
	return instruction{}
}

// installs says whether a RUN of the stage installs a Debian package.
func installs(s stage, pkg string) bool {
	for _, r := range s.all("RUN") {
		if strings.Contains(r.args, "apt-get install") && slices.Contains(strings.Fields(r.args), pkg) {
			return true
		}
	}
	return false
}

// runAsUser reads a runAsUser of the chart's values (helm/corral/values.yaml).
func runAsUser(t *testing.T, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "helm", "corral", "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type component struct {
		PodSecurityContext struct {
			RunAsUser int `yaml:"runAsUser"`
		} `yaml:"podSecurityContext"`
	}
	var v struct {
		Gateway component `yaml:"gateway"`
		Node    component `yaml:"node"`
		Vision  component `yaml:"vision"`
	}
	if err := yaml.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	switch name {
	case "node":
		return v.Node.PodSecurityContext.RunAsUser
	case "vision":
		return v.Vision.PodSecurityContext.RunAsUser
	}
	return v.Gateway.PodSecurityContext.RunAsUser
}

// The gateway's static image and the node's Debian image: the chart's user, a static corral,
// and the base each role needs.
func TestCorralImages(t *testing.T) {
	for _, img := range []struct {
		file, role string
		final      func(stage) string // what is wrong with the final stage, if anything
	}{
		{"Dockerfile", "gateway", func(final stage) string {
			if !strings.HasPrefix(final.image, "gcr.io/distroless/static") && final.image != "scratch" {
				return "final base " + final.image + ": want distroless/static (or scratch) for a static binary"
			}
			if len(final.all("RUN")) != 0 || installs(final, "adb") {
				return "the static image runs commands or installs adb; adb belongs in Dockerfile.node"
			}
			return ""
		}},
		// The chart runs /bin/sh (node id from the node name) and adb (the sidecar) from it.
		{"Dockerfile.node", "node", func(final stage) string {
			if !strings.HasPrefix(final.image, "debian:") || !strings.Contains(final.image, "-slim") {
				return "final base " + final.image + ": want debian slim (a shell, and Debian's adb)"
			}
			return ""
		}},
	} {
		stages := parse(t, img.file)
		uid := checkCommon(t, img.file, stages)
		if want := runAsUser(t, img.role); uid != want {
			t.Errorf("%s: USER %d, but the chart runs the %ss as %d (%s.podSecurityContext.runAsUser)", img.file, uid, img.role, want, img.role)
		}
		if b := goBuild(t, img.file, stages); !strings.Contains(b.args, "CGO_ENABLED=0") {
			t.Errorf("%s:%d: corral is not built with CGO_ENABLED=0", img.file, b.line)
		}
		if msg := img.final(stages[len(stages)-1]); msg != "" {
			t.Errorf("%s: %s", img.file, msg)
		}
	}
}

func TestVisionImage(t *testing.T) {
	const file = "Dockerfile.vision"
	stages := parse(t, file)
	checkCommon(t, file, stages)
	final := stages[len(stages)-1]
	for _, pkg := range []string{"libtesseract5", "tesseract-ocr-eng", "libopencv-core406", "libopencv-imgproc406"} {
		if !installs(final, pkg) {
			t.Errorf("%s: the runtime stage does not install %s", file, pkg)
		}
	}
	b := goBuild(t, file, stages)
	if !strings.Contains(b.args, "CGO_ENABLED=1") {
		t.Errorf("%s:%d: the vision worker links OpenCV and Tesseract: build with CGO_ENABLED=1", file, b.line)
	}
	if !strings.Contains(b.args, "-tags vision") {
		t.Errorf("%s:%d: corral is built without the vision tag: the image would have no worker", file, b.line)
	}
	if !installs(final, "tesseract-ocr-chi-sim") {
		t.Errorf("%s: the runtime stage does not install tesseract-ocr-chi-sim (requests read eng and chi_sim by default)", file)
	}
	cmd := final.all("CMD")
	if len(cmd) != 1 || !strings.HasPrefix(cmd[0].args, `["vision"`) {
		t.Errorf("%s: CMD %v, want the worker: [\"vision\", ...]", file, cmd)
	}
	if uid, want := checkCommon(t, file, stages), runAsUser(t, "vision"); uid != want {
		t.Errorf("%s: USER %d, but the chart runs the vision workers as %d (vision.podSecurityContext.runAsUser)", file, uid, want)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "PLACEHOLDER") {
		t.Errorf("%s still says it is a placeholder", file)
	}
}

func TestDockerIgnore(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", ".dockerignore"))
	if err != nil {
		t.Fatalf("the images build from the repository root: it needs a .dockerignore: %v", err)
	}
	lines := strings.Fields(string(b))
	for _, p := range []string{".git", ".tools", "bin", "data"} {
		if !slices.Contains(lines, p) {
			t.Errorf(".dockerignore does not leave out %s", p)
		}
	}
	for _, p := range []string{"go.mod", "go.sum", "cmd", "*.go"} {
		if slices.Contains(lines, p) {
			t.Errorf(".dockerignore leaves out %s, which the build needs", p)
		}
	}
}
