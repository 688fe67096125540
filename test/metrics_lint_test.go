package test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/logtest"
)

// A running farm's /metrics passes promtool's lint (`promtool check metrics`, as an operator
// runs it): names, units and suffixes as Prometheus wants them. The farm has an arm rig, so
// that the device readings (corral_device_reading) are among the series.
func TestMetricsPassPromtoolLint(t *testing.T) {
	promtool := tool(t, "promtool")
	corral(t) // built before the clock starts
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	addr := startCorralUpWith(ctx, t, "--sim", "1", "--sim-arm", "1")
	// The rig's readings, under whatever name the device readings have.
	metrics := waitMetricLine(ctx, t, addr, regexp.MustCompile(`^corral_device_\w+\{name="[^"]+",node="[^"]+",serial="arm-`))

	cmd := exec.CommandContext(ctx, promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(metrics)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics on the farm's /metrics: %v\n%s", err, out)
	}
}

// startCorralUpWith runs `corral up` with extra flags on free loopback ports and returns the
// address of its /metrics.
func startCorralUpWith(ctx context.Context, t *testing.T, flags ...string) string {
	t.Helper()
	args := append([]string{"up", "--data", t.TempDir(), "--nats-port", "-1", "--http", "127.0.0.1:0", "--adb", "off",
		"--log-level", "warn"}, flags...)
	cmd := exec.CommandContext(ctx, corral(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr logtest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("corral up stderr:\n%s", stderr.String())
		}
	})
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`MCP endpoint\s+http://(\S+)/mcp`)
		var out strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := stdout.Read(buf)
			out.WriteString(string(buf[:n]))
			if m := re.FindStringSubmatch(out.String()); m != nil {
				addr <- m[1]
				_, _ = io.Copy(io.Discard, stdout) // so that the process never blocks on stdout
				return
			}
			if err != nil {
				close(addr)
				return
			}
		}
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			t.Fatalf("corral up printed no MCP endpoint; stderr:\n%s", stderr.String())
		}
		return a
	case <-ctx.Done():
		t.Fatalf("corral up printed no MCP endpoint in time; stderr:\n%s", stderr.String())
	}
	return ""
}

// waitMetricLine polls addr's /metrics until a line matches want, and returns that scrape.
func waitMetricLine(ctx context.Context, t *testing.T, addr string, want *regexp.Regexp) []byte {
	t.Helper()
	for {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			for l := range strings.Lines(string(body)) {
				if want.MatchString(l) {
					return body
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("/metrics never had a line matching %s", want)
		case <-time.After(100 * time.Millisecond): // polling a condition
		}
	}
}
