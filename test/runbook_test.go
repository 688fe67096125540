package test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// runbookPath is the operator's runbook; every command of its sh blocks is run here.
const runbookPath = "../docs/operations.md"

// runbookAnchors are the sections the alert rules link to (deploy/prometheus/rules.yaml).
var runbookAnchors = []string{"Node lost", "Devices offline", "Queue wait", "Tool errors", "Restart storm",
	"NATS latency", "Denied calls", "Target down"}

// step is one runbook command with what the page says it prints.
type step struct {
	line    int
	section string
	command string
	expect  []string // pieces of the output
	status  int      // the exit status the page says (0 unless "#> exit status N")
	untilC  bool     // runs until Ctrl-C: stopped after a while, then checked
}

// readRunbook extracts the steps of the runbook's sh blocks. It fails on a line an sh block
// must not hold, so that nothing on the page escapes the test.
func readRunbook(t *testing.T, path string) (steps []step, headings []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inBlock, runnable, section := false, false, ""
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			if inBlock {
				inBlock = false
				continue
			}
			inBlock, runnable = true, strings.TrimPrefix(line, "```") == "sh"
			continue
		case !inBlock && strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
			headings = append(headings, section)
			continue
		case !inBlock || !runnable:
			continue
		}
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
		case strings.HasPrefix(trimmed, "#>"):
			if len(steps) == 0 {
				t.Fatalf("%s:%d: #> before any command", path, n)
			}
			want := strings.TrimSpace(strings.TrimPrefix(trimmed, "#>"))
			s := &steps[len(steps)-1]
			if _, err := fmt.Sscanf(want, "exit status %d", &s.status); err == nil {
				continue
			}
			s.expect = append(s.expect, want)
		case strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(trimmed, "corral ") || strings.HasPrefix(trimmed, "nats "):
			steps = append(steps, step{line: n, section: section, command: trimmed, untilC: strings.Contains(trimmed, "# until Ctrl-C")})
		default:
			t.Fatalf("%s:%d: an sh block holds only corral and nats commands, comments and #> lines; put %q in a console block", path, n, trimmed)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return steps, headings
}

// Every command of the runbook works against a running farm and prints what the page says.
// The farm has a lease held by an agent on SERIAL, a task on it (TASK), a failed task, a lost
// node, and calls running on another node throughout.
func TestRunbook(t *testing.T) {
	natsCLI := tool(t, "nats")
	steps, headings := readRunbook(t, runbookPath)
	anchors := map[string]bool{}
	for _, h := range headings {
		anchors[slug(h)] = true
	}
	rules, err := os.ReadFile("../deploy/prometheus/rules.yaml")
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`operations\.md#([a-z0-9-]+)`).FindAllStringSubmatch(string(rules), -1)
	if len(links) == 0 {
		t.Fatal("deploy/prometheus/rules.yaml links to no section of the runbook")
	}
	linked := slices.Clone(runbookAnchors)
	for _, m := range links {
		linked = append(linked, m[1])
	}
	for _, a := range linked {
		if !anchors[slug(a)] {
			t.Fatalf("%s has no section for #%s: the alert rules link to it", runbookPath, slug(a))
		}
	}
	if len(steps) < 20 {
		t.Fatalf("only %d runbook commands found in %s", len(steps), runbookPath)
	}

	f := farmtest.Start(t, farmtest.Options{Nodes: 3, PhonesPerNode: 2})
	if haveVisionWorker {
		startVisionWorker(t, f.URL)
	}
	const serial, node = "n1-p1", "n1"
	agent := f.Client("agent-007")
	lease := leaseOf(t, farmtest.MustCall(t, agent, "acquire_device", args("serial", serial)))
	farmtest.MustCall(t, agent, "tap_xy", args("serial", serial, "lease", lease, "x", 0.5, "y", 0.5))
	// A failure of the device's own (not a caller's mistake, which is refused as bad_input).
	f.Phone("n1-p2").FailNext(nil)
	if res := farmtest.Call(t, agent, "app_launch", args("serial", "n1-p2", "packageName", "com.corral.clock")); !res.IsError {
		t.Fatalf("a launch the phone failed succeeded: %s", farmtest.Text(res))
	}
	f.KillNode("n3")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device("n3-p1")
		return ok && d.State == broker.StateOffline
	}, "the killed node's devices offline")

	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "runbook-test"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := stores.TaskHistory(t.Context(), broker.HistoryQuery{Serial: serial, Limit: 1})
	if err != nil || len(h.Tasks) != 1 || h.Tasks[0].Tool != "tap_xy" {
		t.Fatalf("the tap on %s is not in the history: %+v, %v", serial, h, err)
	}
	task := h.Tasks[0].ID

	// Calls on another node throughout, so that live subscriptions see something.
	ctx, stopTraffic := context.WithCancel(t.Context())
	var traffic sync.WaitGroup
	traffic.Go(func() {
		for ctx.Err() == nil {
			_, _ = f.Gateway().Client.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: "n2-p1",
				Tool: "get_screen_size", Holder: broker.Holder{Principal: "traffic"}}, nil)
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	defer func() { stopTraffic(); traffic.Wait() }()

	home := t.TempDir() // no natscli context of whoever runs the test
	vars := map[string]string{"SERIAL": serial, "NODE": node, "TASK": task}
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "NATS_URL="+f.URL, "CORRAL_NATS_URL="+f.URL,
		"PATH="+filepath.Dir(corral(t))+string(os.PathListSeparator)+filepath.Dir(natsCLI)+string(os.PathListSeparator)+os.Getenv("PATH"))
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	for _, s := range steps {
		if strings.HasPrefix(s.section, "Vision") && !haveVisionWorker {
			t.Logf("not run without a vision worker (make test runs it with -tags vision): %s:%d %s", runbookPath, s.line, s.command)
			continue
		}
		out, status := runStep(t, s, env, filepath.Join(home, "work"))
		where := fmt.Sprintf("%s:%d (%s): %s", runbookPath, s.line, s.section, s.command)
		if status != s.status {
			t.Fatalf("%s\nexit status %d, the page says %d; output:\n%s", where, status, s.status, out)
		}
		for _, want := range s.expect {
			want = os.Expand(want, func(k string) string { return vars[k] })
			if !strings.Contains(out, want) {
				t.Fatalf("%s\nthe output does not show %q:\n%s", where, want, out)
			}
		}
		t.Logf("ok %s:%d %s", runbookPath, s.line, s.command)
	}
}

// runStep runs one command with sh and returns its output and exit status. A command that
// runs until Ctrl-C gets an interrupt after a few seconds, and its status is then 0.
func runStep(t *testing.T, s step, env []string, dir string) (string, int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	limit := time.Minute
	if s.untilC {
		limit = 3 * time.Second
	}
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", s.command)
	cmd.Env, cmd.Dir = env, dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) } // Ctrl-C, to the whole group
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if s.untilC && ctx.Err() != nil {
		return string(out), 0
	}
	if ctx.Err() != nil {
		t.Fatalf("%s:%d: %s did not finish within %s:\n%s", runbookPath, s.line, s.command, limit, out)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatalf("%s:%d: %s: %v", runbookPath, s.line, s.command, err)
	}
	return string(out), 0
}

// slug is a heading's anchor as GitHub makes it: lower case, spaces as '-', no punctuation.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// leaseOf returns the lease handle of an acquire_device result.
func leaseOf(t *testing.T, res *mcpgo.CallToolResult) string {
	t.Helper()
	var out struct {
		Lease struct {
			Handle string `json:"handle"`
		} `json:"lease"`
	}
	farmtest.Structured(t, res, &out)
	if out.Lease.Handle == "" {
		t.Fatalf("no lease handle in %s", farmtest.Text(res))
	}
	return out.Lease.Handle
}
