package console_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// QA W's findings on a real farm in a browser: Stop on an arm rig's page halts it with one
// click (emergency_stop through the front door), and the page then says why its gestures are
// off and offers none; Acquire says until when in the browser's time zone, and the holder shows
// since when.
func TestStopAndAcquireInABrowser(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	arm := f.StartArmTwin("n1", 5, 4).Phone.Info().Serial
	base := f.Gateway().HTTP.URL
	ctx := startBrowser(t)

	navigate(t, ctx, base+"/devices/"+arm)
	rendered(t, ctx)
	const panelJS = `(() => { const p = document.getElementById('controls'); const why = p.querySelector('[data-paused-text]');
	  const g = [...p.querySelectorAll('[data-gesture]')]; return [String('paused' in p.dataset), why.hidden ? '' : why.textContent,
	  String(g.length), String(g.filter((b) => b.disabled).length), String(!!p.querySelector('button[data-action=stop]'))]; })()`
	before := waitFor(t, ctx, 5*time.Second, "the controls", panelJS, func([]string) bool { return true })
	if before[0] != "false" || before[1] != "" || before[3] != "0" || before[4] != "true" {
		t.Fatalf("the running rig's controls: paused %s %q, %s of %s gestures off, Stop %s; want a Stop and every gesture on", before[0], before[1], before[3], before[2], before[4])
	}
	waitFor(t, ctx, 5*time.Second, "a click on Stop", `document.querySelector('button[data-action=stop]').click(), true`, func(bool) bool { return true })
	msg := waitFor(t, ctx, 30*time.Second, "Stop's answer", `document.querySelector('[data-result]').textContent`, func(s string) bool { return s != "" })
	if !strings.Contains(msg, "halted until arm_recover") {
		t.Errorf("Stop's answer %q; want the rig halted", msg)
	}
	after := waitFor(t, ctx, 15*time.Second, "the halted rig's controls", panelJS, func(v []string) bool { return v[0] == "true" })
	if !strings.HasPrefix(after[1], "Halted (halted by emergency_stop") || !strings.Contains(after[1], "arm_recover") || after[2] == "0" || after[3] != after[2] ||
		after[4] != "true" {
		t.Errorf("the halted rig's controls: %q, %s of %s gestures off, Stop %s; want why, every gesture off, Stop still there", after[1], after[3], after[2], after[4])
	}

	// Who stopped the rig and when, in the browser's time zone; the stop on its timeline.
	d, _ := f.Gateway().Client.Device(arm)
	stop, ok := device.ParseStop(d.Reason)
	if !ok || stop.At.IsZero() {
		t.Fatalf("the halted rig's reason %q says no stop", d.Reason)
	}
	zone, err := time.LoadLocation(browserTZ)
	if err != nil {
		t.Fatal(err)
	}
	local := func(at time.Time) []string {
		at = at.In(zone)
		return []string{at.Format("15:04:05"), at.Format("3:04:05 PM")}
	}
	has := func(s string, at time.Time) bool {
		return strings.Contains(s, local(at)[0]) || strings.Contains(s, local(at)[1])
	}
	stopped := waitFor(t, ctx, 5*time.Second, "who stopped the rig", `(() => { const p = document.querySelector('[data-stopped]'); return p && !p.hidden ? p.textContent : ''; })()`,
		func(s string) bool { return s != "" })
	if !strings.HasPrefix(stopped, "Stopped by "+stop.By+" at ") || !has(stopped, stop.At) || !strings.Contains(stop.By, "(console)") {
		t.Errorf("the halted rig's page says %q; want stopped by %s at %s (%s)", stopped, stop.By, local(stop.At)[0], browserTZ)
	}
	waitFor(t, ctx, 10*time.Second, "the stop on the timeline", `document.getElementById('timeline').textContent`,
		func(s string) bool {
			return strings.Contains(s, "emergency_stop") && strings.Contains(s, "stopped by "+stop.By)
		})

	phone := "n1-p1"
	navigate(t, ctx, base+"/devices/"+phone)
	rendered(t, ctx)
	waitFor(t, ctx, 5*time.Second, "a click on Acquire", `document.querySelector('button[data-action=acquire]').click(), true`, func(bool) bool { return true })
	msg = waitFor(t, ctx, 30*time.Second, "Acquire's answer", `document.querySelector('[data-result]').textContent`, func(s string) bool { return s != "" })
	var leases struct {
		Leases []struct {
			Serial     string    `json:"serial"`
			AcquiredAt time.Time `json:"acquired_at"`
			ExpiresAt  time.Time `json:"expires_at"`
		} `json:"leases"`
	}
	if err := json.Unmarshal([]byte(farmtest.Text(farmtest.MustCall(t, f.Client("agent"), "list_leases", map[string]any{}))), &leases); err != nil || len(leases.Leases) != 1 {
		t.Fatalf("list_leases: %v %+v", err, leases)
	}
	l := leases.Leases[0]
	if !strings.HasPrefix(msg, "This console holds "+phone+" until ") || strings.Contains(msg, "UTC") || !has(msg, l.ExpiresAt) {
		t.Errorf("Acquire's answer %q; want its expiry in %s (%s)", msg, browserTZ, local(l.ExpiresAt)[0])
	}
	holder := waitFor(t, ctx, 10*time.Second, "the holder", `document.querySelector('main [data-f=holder]').parentElement.textContent`, func(s string) bool { return strings.Contains(s, " since ") })
	if !strings.HasPrefix(holder, "anonymous (console) since ") || !has(holder, l.AcquiredAt) {
		t.Errorf("the holder %q; want since %s (%s)", holder, local(l.AcquiredAt)[0], browserTZ)
	}
}
