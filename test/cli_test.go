package test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

var (
	buildOnce sync.Once
	corralBin string
	buildErr  error
)

// corral builds the corral command once per test run.
func corral(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "corral-bin")
		if err != nil {
			buildErr = err
			return
		}
		corralBin = filepath.Join(dir, "corral")
		out, err := exec.Command("go", "build", "-race", "-o", corralBin, "../cmd/corral").CombinedOutput()
		if err != nil {
			buildErr = &buildError{out: string(out), err: err}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return corralBin
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

func runCorral(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin := corral(t) // before the command's minute: building it may take that on a loaded machine
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	return string(out), err
}

// The operator commands work against NATS directly and through a gateway.
func TestOperatorCLI(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
	for _, via := range [][]string{{"--nats-url", f.URL}, {"--gateway", f.Gateway().MCPURL}} {
		t.Run(via[0], func(t *testing.T) {
			out, err := runCorral(t, append([]string{"devices"}, via...)...)
			if err != nil {
				t.Fatalf("corral devices: %v\n%s", err, out)
			}
			contains(t, out, "SERIAL", "n1-p1", "n1-p2", "online")

			out, err = runCorral(t, append(append([]string{"call"}, via...), "get_screen_size", `{"serial":"n1-p1"}`)...)
			if err != nil {
				t.Fatalf("corral call: %v\n%s", err, out)
			}
			contains(t, out, `"width":1080`, `"height":2400`)

			img := filepath.Join(t.TempDir(), "shot.jpg")
			out, err = runCorral(t, append(append([]string{"call"}, via...), "--out", img, "screenshot", `{"serial":"n1-p2"}`)...)
			if err != nil {
				t.Fatalf("corral call screenshot: %v\n%s", err, out)
			}
			if b, err := os.ReadFile(img); err != nil || len(b) < 1000 || b[0] != 0xFF || b[1] != 0xD8 {
				t.Fatalf("screenshot file is not a JPEG (%v): %s", err, out)
			}

			out, err = runCorral(t, append(append([]string{"call"}, via...), "tap_xy", `{"serial":"n1-p1","x":2}`)...)
			if err == nil {
				t.Fatalf("a bad call exited 0: %s", out)
			}
			contains(t, out, "x must be between 0 and 1")

			holder := f.Client("cli-holder")
			l := acquire(t, holder, args("serial", "n1-p2"))
			out, err = runCorral(t, append([]string{"leases"}, via...)...)
			require.NoError(t, err, "corral leases: %s", out)
			// A table, as devices prints: serial, holder, epoch, expires in, queue.
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.Len(t, lines, 3, "corral leases printed %q; want a header, the lease of n1-p2 and the summary", out)
			assert.Equal(t, "1 lease: android 1; leased 1; n1 1", lines[2])
			assert.Equal(t, []string{"SERIAL", "HOLDER", "EPOCH", "EXPIRES", "IN", "QUEUE"}, strings.Fields(lines[0]))
			row := regexp.MustCompile(`^n1-p2\s+` + regexp.QuoteMeta(l.Lease.Holder) + `\s+` + strconv.FormatUint(l.Lease.Epoch, 10) +
				`\s+(\d+m)?\d+s\s+0$`)
			assert.Regexp(t, row, lines[1], "the lease's row")
			assert.NotContains(t, out, l.Lease.Handle, "corral leases shows the handle")

			out, err = runCorral(t, append([]string{"leases", "--json"}, via...)...)
			if err != nil {
				t.Fatalf("corral leases --json: %v\n%s", err, out)
			}
			var listed struct {
				Leases []struct{ Serial, Holder, Handle string }
			}
			if err := json.Unmarshal([]byte(out), &listed); err != nil {
				t.Fatalf("corral leases --json: %v\n%s", err, out)
			}
			if len(listed.Leases) != 1 || listed.Leases[0].Serial != "n1-p2" || listed.Leases[0].Holder != l.Lease.Holder ||
				strings.Contains(out, l.Lease.Handle) {
				t.Fatalf("corral leases --json printed %s; want the lease of n1-p2 held by %s, without its handle", out, l.Lease.Holder)
			}
			farmtest.MustCall(t, holder, "release_device", args("serial", "n1-p2", "lease", l.Lease.Handle))
			out, err = runCorral(t, append(append([]string{"abort"}, via...), "n1-p1")...)
			if err != nil {
				t.Fatalf("corral abort: %v\n%s", err, out)
			}
			contains(t, out, "n1-p1")
		})
	}
}

// tasks, release and drain take --gateway as the other operator commands do: the holder's own
// release goes through the gateway; the operator actions, which no gateway tool offers, say
// that they need the admin's NATS context, and change nothing.
func TestOperatorActionsGateway(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2})
	gw := []string{"--gateway", f.Gateway().MCPURL}
	holder := f.Client("cli-holder")
	l := acquire(t, holder, args("serial", "n1-p1"))
	held := func() int {
		var list struct{ Leases []struct{ Serial string } }
		farmtest.Structured(t, farmtest.MustCall(t, holder, "list_leases", nil), &list)
		return len(list.Leases)
	}

	for _, cmd := range [][]string{
		{"release", "n1-p1", "--force"},
		{"drain", "n1"},
		{"drain", "n1", "--status"},
		{"tasks", "--serial", "n1-p1"},
	} {
		out, err := runCorral(t, append(cmd, gw...)...)
		require.Error(t, err, "corral %s --gateway exited 0: %s", strings.Join(cmd, " "), out)
		assert.NotContains(t, out, "flag provided but not defined", "corral %s rejects --gateway", cmd[0])
		assert.Contains(t, out, "pass --nats-context with the admin's context", "corral %s --gateway does not say what to use", strings.Join(cmd, " "))
		assert.Equal(t, 1, held(), "corral %s --gateway changed the leases", strings.Join(cmd, " "))
	}
	out, err := runCorral(t, "drain", "n1", "--status", "--nats-url", f.URL)
	require.NoError(t, err, "corral drain --status: %s", out)
	assert.Contains(t, out, "not draining", "the refused drain drained the node")

	// The handle is a secret: not taken from argv (ps shows it), only from $CORRAL_LEASE or
	// --lease-file.
	for _, flags := range [][]string{{"--lease", l.Lease.Handle}, {"--lease=" + l.Lease.Handle}} {
		out, err = runCorral(t, append(append([]string{"release", "n1-p1"}, flags...), gw...)...)
		require.Error(t, err, "corral release --lease HANDLE exited 0: %s", out)
		assert.Contains(t, out, "--lease takes no value on the command line")
		assert.Contains(t, out, "--lease-file FILE or $CORRAL_LEASE")
		assert.NotContains(t, out, l.Lease.Handle, "the handle was echoed")
		assert.Equal(t, 1, held(), "the refused corral release --lease HANDLE released the lease")
	}
	out, _, err = corralRun(t, t.TempDir(), []string{"CORRAL_LEASE=" + l.Lease.Handle}, append([]string{"release", "n1-p1"}, gw...)...)
	require.NoError(t, err, "CORRAL_LEASE=… corral release --gateway: %s", out)
	assert.Contains(t, out, "n1-p1")
	assert.NotContains(t, out, l.Lease.Handle, "the handle was echoed")
	assert.Equal(t, 0, held(), "the lease is still held after CORRAL_LEASE=… corral release --gateway")
}

// `corral up` runs a farm in one process, prints the MCP URL, serves it, and stops on SIGINT.
func TestCorralUp(t *testing.T) {
	cmd := exec.Command(corral(t), "up", "--data", t.TempDir(), "--nats-port", "-1", "--http", "127.0.0.1:0", "--sim", "2", "--log-level", "warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	urlRE := regexp.MustCompile(`MCP endpoint\s+(http://\S+/mcp)`)
	lines := bufio.NewScanner(stdout)
	var url string
	for lines.Scan() {
		if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("corral up printed no MCP endpoint")
	}
	go func() {
		for lines.Scan() { // keep reading so the process never blocks on stdout
		}
	}()
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	res := farmtest.MustCall(t, c, "list_available_devices", nil)
	contains(t, farmtest.Text(res), "sim-local-01", "sim-local-02")
	farmtest.MustCall(t, c, "tap_xy", args("serial", "sim-local-01", "x", 0.5, "y", 0.5))
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("corral up exited with %v after SIGINT", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("corral up did not stop within 15s of SIGINT")
	}
}

// A stdio MCP client reaches the gateway through `corral mcp-stdio`.
func TestStdioBridge(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	c, err := client.NewStdioMCPClient(corral(t), nil, "mcp-stdio", "--gateway", f.Gateway().MCPURL, "--log-level", "warn")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "stdio-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	contains(t, strings.Join(names, ","), "tap_xy", "acquire_device", "screenshot")
	res := farmtest.MustCall(t, c, "get_screen_size", args("serial", "n1-p1"))
	contains(t, farmtest.Text(res), "1080")
	img, _ := farmtest.Image(farmtest.MustCall(t, c, "screenshot", args("serial", "n1-p1")))
	if len(img) < 1000 {
		t.Fatal("no screenshot through the bridge")
	}
}

// `corral up --sim-android` runs the real Android path: simulated devices, a private adb server,
// the Android driver.
func TestCorralUpWithSimulatedAndroid(t *testing.T) {
	tool(t, "adb")
	url := corralUp(t, "--sim", "0", "--sim-android", "2", "--adb", "off")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		out, err := runCorral(t, "devices", "--gateway", url)
		return err == nil && strings.Count(out, "Corral SimAndroid") == 2 && !strings.Contains(out, "unhealthy")
	}, "two simulated Android devices listed")
}

// corralUp runs `corral up` with args on an embedded NATS of its own until the test ends, and
// returns its MCP endpoint.
func corralUp(t *testing.T, args ...string) string {
	t.Helper()
	args = append([]string{"up", "--data", t.TempDir(), "--nats-port", "-1", "--http", "127.0.0.1:0", "--log-level", "warn"}, args...)
	cmd := exec.Command(corral(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGINT); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	urlRE := regexp.MustCompile(`MCP endpoint\s+(http://\S+/mcp)`)
	var url string
	for url == "" && lines.Scan() {
		if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	go func() {
		for lines.Scan() {
		}
	}()
	if url == "" {
		t.Fatal("no MCP endpoint printed")
	}
	return url
}
