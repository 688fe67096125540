package chart_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestChartGatewayDrain: the gateway drains within its pod's grace period: --drain-timeout is
// terminationGracePeriodSeconds less 5 s (its last writes), --drain-delay (accepting while
// /readyz says 503: no preStop sleep, the image has no shell) fits inside it, and a delay that
// does not is refused by helm, naming both values.
func TestChartGatewayDrain(t *testing.T) {
	for _, c := range []struct {
		sets                  []string
		grace, timeout, delay string
	}{
		{nil, "30", "25s", "5s"},
		{[]string{"gateway.terminationGracePeriodSeconds=120", "gateway.drainDelaySeconds=10"}, "120", "115s", "10s"},
		{[]string{"gateway.terminationGracePeriodSeconds=5", "gateway.drainDelaySeconds=0"}, "5", "0s", "0s"},
	} {
		_, pod, gw := gateway(t, render(t, valuesCase{name: "drain", sets: c.sets}))
		f := flags(gw)
		if got := fmt.Sprint(pod["terminationGracePeriodSeconds"]); got != c.grace {
			t.Errorf("--set %v: terminationGracePeriodSeconds %s, want %s", c.sets, got, c.grace)
		}
		if f["drain-timeout"] != c.timeout || f["drain-delay"] != c.delay {
			t.Errorf("--set %v: --drain-timeout=%s --drain-delay=%s, want %s and %s", c.sets, f["drain-timeout"], f["drain-delay"], c.timeout, c.delay)
		}
		timeout, err1 := time.ParseDuration(f["drain-timeout"])
		delay, err2 := time.ParseDuration(f["drain-delay"])
		if err1 != nil || err2 != nil || delay > timeout {
			t.Errorf("--set %v: corral gateway refuses --drain-timeout=%s --drain-delay=%s", c.sets, f["drain-timeout"], f["drain-delay"])
		}
	}
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"gateway.terminationGracePeriodSeconds=8", "gateway.drainDelaySeconds=5"}, "gateway.drainDelaySeconds (5) is longer than the drain"},
		{[]string{"gateway.terminationGracePeriodSeconds=3"}, "/gateway/terminationGracePeriodSeconds"},
		{[]string{"gateway.drainDelaySeconds=-1"}, "/gateway/drainDelaySeconds"},
	} {
		_, err := helm(t, append([]string{"template", release, chartDir(t)}, valuesCase{sets: c.sets}.args()...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--set %v: %v; want an error with %q", c.sets, err, c.want)
		}
	}
}
