package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
)

func TestOnlyTheLatestScreenshotsAreSent(t *testing.T) {
	t.Parallel()
	for _, keep := range []int{2, 0} {
		t.Run(fmt.Sprintf("keep %d", keep), func(t *testing.T) {
			t.Parallel()
			latestScreenshots(t, keep)
		})
	}
}

// latestScreenshots runs a step of four taps keeping keep screenshots (0: the default, 3).
func latestScreenshots(t *testing.T, keep int) {
	r := newRig(t,
		plan(step{Title: "Tap around"}),
		tapXY(0.1, 0.13), tapXY(0.2, 0.13), tapXY(0.3, 0.13), tapXY(0.4, 0.13),
		stepDone("success", "tapped"),
		finished("done"),
	)
	o := r.options("Tap around")
	o.Budget.KeepImages = keep
	if keep == 0 {
		keep = agent.DefaultKeepImages
	}
	task := run(t, context.Background(), o)
	wantStatus(t, task, agent.StatusFinished)

	reqs := r.srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d requests, want 7", len(reqs))
	}
	// Request i of the step (1..5) holds i screens: the step's first and one after each tap.
	for i, req := range reqs {
		var withImage, withNote []int
		for j, m := range req.Messages {
			if len(m.Images) > 0 {
				withImage = append(withImage, j)
			}
			if strings.Contains(m.Text, "older screenshot left out") {
				withNote = append(withNote, j)
			}
		}
		screens := len(withImage) + len(withNote)
		if want := min(screens, keep); len(withImage) != want {
			t.Errorf("request %d: %d screenshots of %d screens, want %d", i, len(withImage), screens, want)
		}
		if len(withNote) > 0 && len(withImage) > 0 && withNote[len(withNote)-1] > withImage[0] {
			t.Errorf("request %d: a newer screenshot (message %v) was left out rather than an older (%v)", i, withNote, withImage)
		}
		if i == 5 && screens != 5 {
			t.Errorf("request 5 shows %d screens, want 5", screens)
		}
	}
}
