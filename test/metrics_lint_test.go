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
)

// A running farm's /metrics passes promtool's lint (`promtool check metrics`, as an operator
// runs it): names, units and suffixes as Prometheus wants them. The farm has an arm rig, so
// that the device readings (corral_device_reading) are among the series.
func TestMetricsPassPromtoolLint(t *testing.T) {
	promtool := tool(t, "promtool")
	corral(t) // built before the clock starts
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	addr := startCorralUp(ctx, t, "--sim", "1", "--sim-arm", "1").metricsAddr
	// The rig's readings, under whatever name the device readings have.
	metrics := waitMetricLine(ctx, t, addr, regexp.MustCompile(`^corral_device_\w+\{name="[^"]+",node="[^"]+",serial="arm-`))

	cmd := exec.CommandContext(ctx, promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(metrics)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics on the farm's /metrics: %v\n%s", err, out)
	}
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
