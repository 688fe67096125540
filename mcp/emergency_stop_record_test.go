package mcp_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

var recordedAs = regexp.MustCompile(`Recorded as task (t_[0-9A-Za-z]+) on the device's timeline`)

// emergency_stop says who stopped a device and when, where a person looks: the halted rig's
// reason (get_device_status), and a task record of tool emergency_stop on the device's
// timeline (get_task_result, corral tasks), whose id its answer gives. A phone, with no
// machine to halt, has its stop recorded too. It kept only the reason's constant, and no
// record: no one could tell who stopped a rig, nor when.
func TestEmergencyStopSaysWhoAndWhen(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	arm := f.StartArmTwin("n1", 9, 4).Phone.Info().Serial
	c := f.Client("bench-ops")
	before := time.Now().Add(-time.Second)

	var out struct {
		Message string `json:"message"`
		Halted  bool   `json:"halted"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "emergency_stop", map[string]any{"serial": arm}), &out)
	m := recordedAs.FindStringSubmatch(out.Message)
	if !out.Halted || m == nil {
		t.Fatalf("emergency_stop: halted %v, %q; want the rig halted and where its stop is recorded", out.Halted, out.Message)
	}
	after := time.Now().Add(time.Second)
	stoppedBy := func(what, reason string) {
		t.Helper()
		s, ok := device.ParseStop(reason)
		if !ok || !strings.Contains(s.By, "bench-ops") || s.At.Before(before) || s.At.After(after) || s.At.Location() != time.UTC {
			t.Errorf("%s %q says %+v (a stop: %v); want bench-ops's stop at about %s", what, reason, s, ok, before.UTC())
		}
	}

	var status struct {
		State  string `json:"state"`
		Reason string `json:"reason"`
	}
	farmtest.Eventually(t, 10*time.Second, func() bool {
		farmtest.Structured(t, farmtest.MustCall(t, c, "get_device_status", map[string]any{"serial": arm}), &status)
		return status.State == broker.StateUnhealthy
	}, "the rig shown halted")
	stoppedBy("get_device_status's reason", status.Reason)

	var rec struct {
		Tool    string `json:"tool"`
		Holder  string `json:"holder"`
		Outcome string `json:"outcome"`
		Text    string `json:"text"`
		Data    struct {
			StoppedBy string    `json:"stoppedBy"`
			StoppedAt time.Time `json:"stoppedAt"`
			Halted    bool      `json:"halted"`
		} `json:"data"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_task_result", map[string]any{"task_id": m[1]}), &rec)
	if rec.Tool != "emergency_stop" || rec.Outcome != broker.OutcomeSucceeded || !strings.Contains(rec.Holder, "bench-ops") ||
		!strings.HasPrefix(rec.Text, "stopped by "+rec.Holder+" at ") || !strings.Contains(rec.Text, "halted until arm_recover") ||
		rec.Data.StoppedBy != rec.Holder || !rec.Data.Halted || rec.Data.StoppedAt.Before(before) {
		t.Errorf("the stop's record: %+v", rec)
	}

	history := func(serial string) []broker.TaskResult { // as corral tasks --tool emergency_stop reads them
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		h, err := f.Gateway().Client.TaskHistory(ctx, broker.HistoryQuery{Serial: serial, Tool: "emergency_stop"})
		if err != nil {
			t.Fatal(err)
		}
		return h.Tasks
	}
	if h := history(arm); len(h) != 1 || h[0].ID != m[1] {
		t.Errorf("the rig's emergency_stop records: %+v; want %s", h, m[1])
	}

	phone := "n1-p1"
	farmtest.Structured(t, farmtest.MustCall(t, c, "emergency_stop", map[string]any{"serial": phone}), &out)
	if m := recordedAs.FindStringSubmatch(out.Message); m == nil || out.Halted {
		t.Fatalf("emergency_stop of a phone: halted %v, %q", out.Halted, out.Message)
	}
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(history(phone)) == 1 }, "the phone's stop recorded")
	if r := history(phone)[0]; !strings.Contains(r.Text, "no machine to halt") || !strings.Contains(r.Holder.String(), "bench-ops") {
		t.Errorf("the phone's stop recorded as %+v", r)
	}

	farmtest.MustCall(t, c, "arm_recover", map[string]any{"serial": arm})
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(arm)
		return d.State == broker.StateOnline
	}, "the rig online after arm_recover")
}
