package rig_test

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// A rig without a clipboard helper answers send_to_clipboard unsupported, a refusal in which
// nothing moved, saying what it lacks and what to do instead: it was driver_error, a failure
// counted against the rig (CorralToolErrors).
func TestRigWithoutClipboardHelperIsUnsupported(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw, err := twin.Start(twin.Options{Seed: 6, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })
	stop, err := rig.ServeTwinWithoutClipboard(t.Context(), f.NodeRegistry("n1"), tw, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	serial := tw.Phone.Info().Serial
	farmtest.Eventually(t, 2*time.Minute, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.State == broker.StateOnline
	}, "the rig calibrated and online")

	before := tw.GRBL.Snapshot().Pos
	res := farmtest.Call(t, f.Client("agent"), "send_to_clipboard", map[string]any{"serial": serial, "text": "hello"})
	text := farmtest.Text(res)
	if !res.IsError {
		t.Fatalf("send_to_clipboard on a rig without a helper succeeded: %s", text)
	}
	for _, want := range []string{"refused (unsupported)", "the rig has no clipboard helper", "clipboard: url of a helper app", "tap_xy on each key"} {
		if !strings.Contains(text, want) {
			t.Errorf("the refusal does not say %q: %s", want, text)
		}
	}
	id := regexp.MustCompile(`\bt_[A-Za-z0-9]+`).FindString(text)
	if id == "" {
		t.Fatalf("no task id in %q", text)
	}
	var rec broker.TaskResult
	farmtest.Eventually(t, 30*time.Second, func() bool {
		rec, err = f.Gateway().Client.TaskRecord(t.Context(), id)
		return err == nil
	}, "task %s recorded", id)
	if rec.Outcome != broker.OutcomeRefused || rec.Code != broker.CodeUnsupported {
		t.Errorf("the task is recorded %s/%s, want refused/unsupported: %s", rec.Outcome, rec.Code, rec.Error)
	}
	if after := tw.GRBL.Snapshot().Pos; after != before {
		t.Errorf("the gantry moved from %v to %v", before, after)
	}
}
