package steps

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// syncBuffer is a log's output, read while the run writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A lease that ended while the run held it (an operator revoked it; its device or node went
// away) leaves nothing to give back: the run's release at the end, and a release_device step,
// find it stale. That is no warning, and a failed release_device of an ended lease is not
// tried again at the end.
func TestRunReleasesNoLeaseThatEnded(t *testing.T) {
	f, c, cat := startFarm(t)
	revoke := func(r Result) {
		if r.Index != 1 {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 10*time.Second)
		defer cancel()
		ans, err := f.Gateway().Client.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: "n1-p2", Force: true, By: "ops"})
		if err != nil || !ans.OK {
			t.Errorf("revoke: %+v %v", ans, err)
		}
	}
	for name, src := range map[string]string{
		// A failure skips release_device: the run releases the lease itself, and finds it ended.
		"at the end": "- {method: acquire_device, params: n1-p2}\n- {method: app_launch, params: com.example.nope}\n- {method: release_device}\n",
		// release_device finds it ended: nothing is left for the end.
		"by a step": "- {method: acquire_device, params: n1-p2}\n- {method: release_device, ignore_error: true}\n- {method: list_leases}\n",
	} {
		var log syncBuffer
		p, err := NewPlan(mustParse(t, src), cat, Options{Progress: revoke,
			Log: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
		if err != nil {
			t.Fatal(err)
		}
		rep := p.Run(t.Context(), c)
		if !strings.Contains(rep.Steps[1].Error, "stale_lease") && !strings.Contains(rep.Steps[1].Error, "not installed") {
			t.Errorf("%s: step 2 %+v", name, rep.Steps[1])
		}
		if strings.Contains(log.String(), "level=WARN") {
			t.Errorf("%s: a lease that ended is warned about:\n%s", name, log.String())
		}
		if h := p.Holding(); len(h) != 0 {
			t.Errorf("%s: the run says it still holds %v", name, h)
		}
		ended := strings.Contains(log.String(), "had ended already: nothing to give back")
		if want := name == "at the end"; ended != want {
			t.Errorf("%s: the end's release found the lease ended: %v, want %v\n%s", name, ended, want, log.String())
		}
	}
}

// Holding names the devices the run holds leases of while it runs (what a run killed now
// leaves leased), and none once it gave them back.
func TestPlanHolding(t *testing.T) {
	_, c, cat := startFarm(t)
	var during [][]string
	var p *Plan
	p, err := NewPlan(mustParse(t, "- {method: acquire_device, params: n1-p2}\n- {method: home}\n- {method: app_launch, params: com.example.nope}\n"), cat,
		Options{Progress: func(Result) { during = append(during, p.Holding()) }})
	if err != nil {
		t.Fatal(err)
	}
	p.Run(t.Context(), c)
	want := [][]string{{"n1-p2"}, {"n1-p2"}, {"n1-p2"}}
	if !slices.EqualFunc(during, want, slices.Equal) {
		t.Errorf("holding during the run %v, want %v", during, want)
	}
	if h := p.Holding(); len(h) != 0 {
		t.Errorf("holding after the run gave the lease back: %v", h)
	}
}

// An interrupted run says why it does not end at once: it gives back the leases its steps hold,
// within releaseTimeout, and a second signal would leave them leased.
func TestRunInterruptedSaysItGivesLeasesBack(t *testing.T) {
	_, c, cat := startFarm(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var log syncBuffer
	p, err := NewPlan(mustParse(t, "- {method: acquire_device, params: n1-p2}\n- {method: home}\n- {method: home}\n"), cat,
		Options{Log: slog.New(slog.NewTextHandler(&log, nil)), Progress: func(r Result) {
			if r.Index == 2 {
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	p.Run(ctx, c)
	for _, want := range []string{`level=INFO msg="giving back the leases the run holds (signal again to leave them leased)" serials=[n1-p2] within=10s`,
		`msg="released the lease a step took and no step gave back" serial=n1-p2`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log\n%s\ndoes not say %s", log.String(), want)
		}
	}
	if h := p.Holding(); len(h) != 0 {
		t.Errorf("still holding %v", h)
	}
}
