package steps

import (
	"strings"
	"testing"
)

// A step's faulty option is listed with every other step's faults, found against the gateway's
// tools, and nothing runs. QA: a file with expect_timeout but no expect reported that step
// alone; the unknown tool and the params out of range of the steps after it went unsaid.
func TestPlanListsAnOptionsFaultWithTheOthers(t *testing.T) {
	f, _, cat := startFarm(t)
	before := len(f.Phone("n1-p1").InputLog())
	doc := mustParse(t, "- {method: home, expect_timeout: 5}\n- {method: tap_xy, params: [2, 0.5]}\n- {method: tap_xyz}\n"+
		"- {method: back, ignore_error: yes}\n- {method: home}\n")
	_, err := NewPlan(doc, cat, Options{Serial: "n1-p1"})
	want := []string{
		"step 1 (line 1, home): options.expect_timeout: bounds the wait for expect's text, and the step has no expect: add expect or drop it",
		"step 2 (line 2, tap_xy): x must be between 0 and 1, got 2",
		`step 3 (line 3, tap_xyz): the gateway has no tool "tap_xyz" (did you mean "tap_xy"?)`,
		`step 4 (line 4, back): options.ignore_error: must be true or false, got the string "yes"`,
	}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("NewPlan's error\n%v\ndoes not say %s", err, w)
		}
	}
	if err != nil && strings.Count(err.Error(), "\n") != len(want)-1 {
		t.Errorf("want %d steps at fault:\n%v", len(want), err)
	}
	if log := f.Phone("n1-p1").InputLog(); len(log) != before {
		t.Errorf("something ran on the phone: %v", log)
	}
}
