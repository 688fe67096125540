package steps

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/redact"
)

// A failure that quotes typed text the run hides names the step that typed it, by number, name
// and tool, with the text's length: in the expected text, on the screen, in a tool's refusal. A
// letter the hiding leaves in the words that hold it, and a step that has not run, are not named;
// nor is anything without Hide.
func TestFailureNamesTheStepsWhoseTypedTextItHides(t *testing.T) {
	_, c, cat := startFarm(t)
	const typed, later = "Hunter2Passw0rd", "later-SECRET"
	hide := redact.NewSecrets("[hidden]", []string{typed, "e", later}, "n1-p1", "n1-p2").Hide
	notes := "- {method: home}\n- {method: tap_xy, params: [0.375, 0.36], expect: Clear}\n"
	for _, tc := range []struct {
		name, doc, serial string
		hide              func(string) string
		step              int
		want              string // the error ends so
	}{
		{"the expected text", notes + "- {tool: input, arguments: {text: " + typed + "}, name: Type it}\n- {method: back, expect: " + typed + ", expect_timeout: 0.3}\n" +
			"- {tool: input, arguments: {text: " + later + "}}\n", "n1-p1", hide, 3,
			`; the secret text hidden here is step 3's text (input "Type it", 15 characters)`},
		{"the screen", notes + "- {tool: input, arguments: {text: e}}\n- {tool: input, arguments: {text: " + typed + "}, expect: Saved, expect_timeout: 0.3}\n",
			"n1-p2", hide, 3, `"e[hidden]", "16 characters"; the secret text hidden here is step 4's text (input, 15 characters)`},
		{"without Hide", notes + "- {tool: input, arguments: {text: " + typed + "}}\n- {method: back, expect: " + typed + ", expect_timeout: 0.3}\n", "n1-p1", nil, 3,
			`not there after 0.3 s: the screen shows "12:00"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPlan(mustParse(t, tc.doc), cat, Options{Serial: tc.serial, Hide: tc.hide})
			if err != nil {
				t.Fatal(err)
			}
			rep := p.Run(t.Context(), c)
			s := rep.Steps[tc.step]
			if s.Status != Failed {
				t.Fatalf("step %d passed: %+v", s.Index, rep.Steps)
			}
			named := strings.Contains(s.Error, "hidden here")
			if !strings.Contains(s.Error, tc.want) || named != (tc.hide != nil) || named && !strings.HasSuffix(s.Error, tc.want) {
				t.Errorf("step %d's error:\n%s\nwant it to end %s", s.Index, s.Error, tc.want)
			}
		})
	}
}
