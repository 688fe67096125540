package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes/uitree"
)

// An expect check: once a step passed, the run reads the device's UI tree with get_source until
// the expected text shows or the step's expect_timeout passes. A tool that answers "tapped" says
// nothing of what the app did; the screen does.
const (
	toolSource           = "get_source"
	defaultExpectTimeout = 5 * time.Second
	maxExpectTimeout     = 10 * time.Minute
	// expectPoll is how often the screen is read again: often enough to end soon after the
	// text shows, rarely enough not to crowd the device.
	expectPoll = 250 * time.Millisecond
	// shownTexts is how many of the screen's texts a failed check quotes: enough to get past a
	// status bar to the app's own.
	shownTexts = 12
)

// parseExpect takes expect and expect_timeout out of a step's options.
func parseExpect(s *Step, opts map[string]any) error {
	if v, ok := opts[optExpect]; ok {
		text, isStr := v.(string)
		if !isStr || strings.TrimSpace(text) == "" {
			return stepError(*s, "options."+optExpect, fmt.Errorf("must be a non-empty text the screen shows after the step, got %s", describe(v)))
		}
		s.Expect = text
		delete(opts, optExpect)
	}
	if v, ok := opts[optExpectTimeout]; ok {
		sec, isNum := v.(float64)
		if !isNum || sec <= 0 || math.IsInf(sec, 0) || time.Duration(sec*float64(time.Second)) > maxExpectTimeout {
			return stepError(*s, "options."+optExpectTimeout, fmt.Errorf("must be a number of seconds above 0 and at most %d, got %s",
				int(maxExpectTimeout.Seconds()), describe(v)))
		}
		if s.Expect == "" {
			return stepError(*s, "options."+optExpectTimeout, errors.New("bounds the wait for expect's text, and the step has no expect: add expect or drop it"))
		}
		s.ExpectTimeout = time.Duration(sec * float64(time.Second))
		delete(opts, optExpectTimeout)
	}
	return nil
}

// checkExpect is the plan's check of a step with expect: the gateway must read screens, and the
// step must act on a device.
func (p *Plan) checkExpect(s Step, tool string) error {
	switch {
	case s.Expect == "":
		return nil
	case !p.cat.Has(toolSource):
		return fmt.Errorf("expect reads the screen with %s, and the gateway does not list it (a tool profile without HttpRunner's tools?): drop expect, or use a gateway that serves %s",
			toolSource, toolSource)
	case !p.cat.Takes(tool, "serial"):
		return fmt.Errorf("expect checks a device's screen, and %s acts on no device: put expect on a step that does", tool)
	}
	return nil
}

// expect waits until the step's device shows the step's expected text, reading its UI tree with
// get_source on the serial and lease the step used. It returns why the check failed, or ""
// (also for a step without expect).
func (p *Plan) expect(ctx context.Context, c Caller, pc plannedCall, args map[string]any, held []heldLease) string {
	if pc.step.Expect == "" {
		return ""
	}
	msg, quoted := p.await(ctx, c, pc, args, held)
	if msg == "" {
		return ""
	}
	return msg + p.hiddenTyped(pc.step.Index, append(quoted, msg)...)
}

// await is expect's wait: why the check failed, or "", and the screen's texts it quotes as the
// screen shows them (the message has them through Options.Hide).
func (p *Plan) await(ctx context.Context, c Caller, pc plannedCall, args map[string]any, held []heldLease) (string, []string) {
	want := pc.step.Expect
	after := fmt.Sprintf("after step %d (%s)", pc.step.Index, pc.tool)
	src := map[string]any{}
	for _, k := range []string{"serial", "lease", "platform"} {
		if v, ok := args[k]; ok && p.cat.Takes(toolSource, k) {
			src[k] = v
		}
	}
	p.useLease(toolSource, src, held) // acquire_device's new lease, for one
	serial, _ := src["serial"].(string)
	timeout := pc.step.ExpectTimeout
	if timeout <= 0 {
		timeout = defaultExpectTimeout
	}
	deadline := time.Now().Add(timeout)
	for {
		res, err := c.CallTool(ctx, newRequest(toolSource, maps.Clone(src)))
		switch {
		case err != nil && ctx.Err() != nil:
			return fmt.Sprintf("interrupted while waiting for %q on the screen %s (%v)", want, after, context.Cause(ctx)), nil
		case err != nil:
			return fmt.Sprintf("expected %q on the screen %s, but %s failed: protocol error: %v (is the gateway up?)", want, after, toolSource, err), nil
		case res == nil:
			return fmt.Sprintf("expected %q on the screen %s, but %s sent no result", want, after, toolSource), nil
		case res.IsError:
			return fmt.Sprintf("expected %q on the screen %s, but %s could not read the screen of %s: %s", want, after, toolSource, serial,
				resultText(res)), nil
		}
		texts, elements, err := screenTexts(res)
		if err != nil {
			return fmt.Sprintf("expected %q on the screen %s, but the UI tree %s sent is unreadable: %v", want, after, toolSource, err), nil
		}
		if shows(texts, want) {
			return "", nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			screen, quoted := describeScreen(texts, p.opts.Hide)
			if len(texts) == 0 {
				screen = p.textless(ctx, c, src, elements)
			}
			return fmt.Sprintf("expected %q on the screen %s; not there after %s s: %s", want, after,
				strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64), screen), quoted
		}
		t := time.NewTimer(min(expectPoll, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Sprintf("interrupted while waiting for %q on the screen %s (%v)", want, after, context.Cause(ctx)), nil
		case <-t.C:
		}
	}
}

// screenTexts reads get_source's result: every text and content-desc of its UI tree, in order,
// runs of white space made one space, and how many elements the tree has.
func screenTexts(res *mcpgo.CallToolResult) (texts []string, elements int, err error) {
	var out struct {
		Source *string `json:"source"`
	}
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil || out.Source == nil {
		return nil, 0, errors.New("its result has no source (a gateway older than this corral?)")
	}
	els, err := uitree.Parse(*out.Source)
	if err != nil {
		return nil, 0, err
	}
	for _, e := range els {
		for _, t := range []string{e.Text, e.ContentDesc} {
			if t = fold(t); t != "" {
				texts = append(texts, t)
			}
		}
	}
	return texts, len(els), nil
}

// shows reports whether one of the texts holds want (case-sensitive; white space folded as in
// the texts).
func shows(texts []string, want string) bool {
	want = fold(want)
	for _, t := range texts {
		if strings.Contains(t, want) {
			return true
		}
	}
	return false
}

// noText is why an app's screen shows no text to expect.
const noText = "the UI tree holds no text (a game, a canvas or a camera view draws its text as pixels, which expect does not read)"

// describeScreen quotes the first few distinct texts of a screen, for a failed check, each
// through hide (if set) before it is cut; quoted are those texts as the screen shows them.
func describeScreen(texts []string, hide func(string) string) (s string, quoted []string) {
	if len(texts) == 0 {
		return noText, nil
	}
	seen := map[string]bool{}
	var shown []string
	for _, t := range texts {
		if seen[t] {
			continue
		}
		seen[t] = true
		if len(quoted) < shownTexts {
			quoted = append(quoted, t)
			if hide != nil {
				t = hide(t)
			}
			shown = append(shown, strconv.Quote(clip(t, 40)))
		}
	}
	s = "the screen shows " + strings.Join(shown, ", ")
	if n := len(seen); n > len(shown) {
		s += fmt.Sprintf(", … (%d texts in all)", n)
	}
	return s, quoted
}

// fold makes every run of white space one space and trims the ends, as element listings show
// labels: a text the agent saw matches the tree's.
func fold(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
