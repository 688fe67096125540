package web

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// gaugeEvery is how often Gauges measures again: the node asks after every task, and walking
// /proc costs more than a tap (20 browsers: 150 processes).
const gaugeEvery = 10 * time.Second

// Gauges reports the browser's memory, all its processes together (memory_mib: their
// proportional set size, so pages they share count once), for /metrics (corral_device_reading),
// measured at most every gaugeEvery; nothing where /proc cannot tell.
func (d *Driver) Gauges() map[string]float64 {
	d.gaugeMu.Lock()
	defer d.gaugeMu.Unlock()
	if d.gauges != nil && time.Since(d.gaugedAt) < gaugeEvery && d.Running() == (d.gauges["memory_mib"] > 0) {
		return d.gauges
	}
	d.gauges, d.gaugedAt = d.measure(), time.Now()
	return d.gauges
}

// measure is Gauges' measurement.
func (d *Driver) measure() map[string]float64 {
	bctx := d.browserCtx()
	if bctx == nil {
		return map[string]float64{"memory_mib": 0} // an elastic device's stopped browser
	}
	c := chromedp.FromContext(bctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return nil
	}
	rss, ok := treeRSS(c.Browser.Process().Pid)
	if !ok {
		return nil
	}
	return map[string]float64{"memory_mib": float64(rss) / (1 << 20)}
}

// treeRSS is the memory in bytes of process root and all its descendants, from /proc: each
// one's PSS (smaps_rollup), or its RSS where the kernel has no rollup.
func treeRSS(root int) (int64, bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	page := int64(os.Getpagesize())
	var total int64
	found := false
	for todo := []int{root}; len(todo) > 0; {
		pid := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], children[pid]...)
		if n, ok := pss(pid); ok {
			total, found = total+n, true
			continue
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				total, found = total+pages*page, true
			}
		}
	}
	return total, found
}

// pss reads a process's proportional set size in bytes from /proc/PID/smaps_rollup.
func pss(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb << 10, err == nil
			}
		}
	}
	return 0, false
}

// parentOf reads a process's parent from /proc/PID/stat (the field after the command's
// closing parenthesis and the state).
func parentOf(pid int) (int, bool) {
	f, err := statFields(pid)
	if err != nil || len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
