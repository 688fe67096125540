package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// QA: at a hub, get_task_result for a task of a site whose link is down gave only the generic
// "no record" answer, though the gateway knows the site is cut off. It names the site and says
// when and where the record is; with no site down it says nothing of sites.
func TestNoRecordAtAHubNamesTheSitesCutOff(t *testing.T) {
	farm := newFakeFarm(t)
	farm.TaskRecordFn = func(_ context.Context, id string) (broker.TaskResult, error) {
		return broker.TaskResult{}, fmt.Errorf("task %s: %w", id, broker.ErrNotFound)
	}
	cl := newTestClient(t, farm)
	for _, down := range [][]string{{"paris"}, nil} {
		farm.Down = down
		res := call(t, cl, "get_task_result", map[string]any{"task_id": "t_abcdefghijklmnop"})
		text := resultText(res)
		if !res.IsError || !strings.Contains(text, "no record of task t_abcdefghijklmnop") {
			t.Fatalf("sites down %v: %s", down, text)
		}
		if said := strings.Contains(text, "The link to site paris is down") && strings.Contains(text, "once the link is back"); said != (down != nil) {
			t.Errorf("sites down %v: the answer names a cut-off site: %v\n%s", down, said, text)
		}
	}
}
