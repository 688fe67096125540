package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// SelectorArgs are the arguments of HttpRunner's by-selector web tools.
type SelectorArgs struct {
	Selector string `json:"selector" arg:"required,minLength=1,maxLength=4096" desc:"CSS selector or XPath" help:"a CSS selector (#login, button.primary) or an XPath (//a[text()='Next'])"`
	// IgnoreNotFound is HttpRunner's option of the same name: no match is not an error.
	IgnoreNotFound bool `json:"ignore_NotFoundError,omitempty" desc:"Not found is no error"`
	// Index and MaxRetryTimes are HttpRunner's general options, declared here because these
	// tools use them (seedopts.go): an agent finds them in tools/list.
	Index         int `json:"index,omitempty" arg:"min=-100,max=100" desc:"Which match: 0 first, -1 last"`
	MaxRetryTimes int `json:"max_retry_times,omitempty" arg:"min=0,max=50" desc:"Looks again this many times"`
	Behaviour
}

// Check trims the selector.
func (a *SelectorArgs) Check() error {
	if a.Selector = strings.TrimSpace(a.Selector); a.Selector == "" {
		return BadInput("selector is empty: give a CSS selector (#login) or an XPath (//button[text()='OK'])")
	}
	return nil
}

// SelectorResult is the structured result of the by-selector tools (HttpRunner seed).
type SelectorResult struct {
	Message  string `json:"message" jsonschema:"What was done"`
	Selector string `json:"selector" jsonschema:"The selector acted on"`
	Found    bool   `json:"found" jsonschema:"False when not found (and ignore_NotFoundError)"`
	Hint     string `json:"hint,omitempty"`
}

// selectorInterval is the pause between looks for a selector's element (HttpRunner's general
// option max_retry_times): a page still building shows it within a few hundred milliseconds.
const selectorInterval = 500 * time.Millisecond

// selectorTool is one of the by-selector tools: act on what a selector finds, as doing says;
// with HttpRunner's general option index, on the index-th match (selector_index.go).
// With max_retry_times it looks again, selectorInterval apart, while nothing matches.
func selectorTool(name, description, doing, done string, act func(device.SelectorActor) selectorAct) Tool {
	return Define[SelectorArgs, SelectorResult](Tool{Name: name, Description: description,
		Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortText, Keys: []string{"selector"}, Usage: `a CSS selector or an XPath, e.g. "#submit"`},
		Needs: []Ability{Need[device.SelectorActor](doing)},
	}, func(ctx context.Context, t *Task, a SelectorArgs) (Output, error) {
		on := act(t.Driver.(device.SelectorActor))
		looks, err := untilFound(ctx, a.MaxRetryTimes, selectorInterval, func() error { return on(ctx, a.Selector, a.Index) })
		switch {
		case errors.Is(err, device.ErrNoElement) && a.IgnoreNotFound:
			return Output{Data: SelectorResult{Message: fmt.Sprintf("nothing matches %q%s%s; ignored (ignore_NotFoundError)", a.Selector, atIndex(a.Index), lookedFor(looks, a.MaxRetryTimes)),
				Selector: a.Selector, Hint: hintAction}}, nil
		case errors.Is(err, device.ErrNoElement) && a.MaxRetryTimes > 0:
			return Output{}, fmt.Errorf("%w; looked %d times, %v apart (max_retry_times %d)", err, looks, selectorInterval, a.MaxRetryTimes)
		case err != nil:
			return Output{}, err
		}
		return Output{Data: SelectorResult{Message: fmt.Sprintf("%s %q%s%s", done, a.Selector, atIndex(a.Index), looked(looks, a.MaxRetryTimes)),
			Selector: a.Selector, Found: true, Hint: hintAction}}, nil
	})
}

// untilFound runs try, and again after interval while it finds no element (device.ErrNoElement),
// up to retries more times; it stops early rather than start a look the deadline of ctx would
// likely cut short (one that may take twice as long as the last, and no less than interval):
// not found says more than a deadline exceeded. It returns how many looks it made, and the last
// look's error.
func untilFound(ctx context.Context, retries int, interval time.Duration, try func() error) (int, error) {
	for looks := 1; ; looks++ {
		start := time.Now()
		err := try()
		if !errors.Is(err, device.ErrNoElement) || looks > retries {
			return looks, err
		}
		next := interval + max(interval, 2*time.Since(start))
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < next {
			return looks, fmt.Errorf("%w; the deadline left no time for look %d of %d (timeout_ms gives more)", err, looks+1, retries+1)
		}
		if err := pause(ctx, interval); err != nil {
			return looks, err
		}
	}
}

// looked says which look found the element, where max_retry_times allowed more than one.
func looked(looks, retries int) string {
	if retries == 0 {
		return ""
	}
	return fmt.Sprintf(" (found on look %d of up to %d: max_retry_times %d)", looks, retries+1, retries)
}

// lookedFor says how long a by-selector tool looked for what it did not find.
func lookedFor(looks, retries int) string {
	if retries == 0 {
		return ""
	}
	return fmt.Sprintf(" (looked %d times, %v apart: max_retry_times %d)", looks, selectorInterval, retries)
}

func tapBySelector() Tool {
	return selectorTool("tap_by_selector", "Tap the element a CSS selector or XPath finds on a web page, scrolled into view, at its centre.",
		"act on page elements by selector", "tapped", func(s device.SelectorActor) selectorAct {
			if n, ok := s.(nthSelectorActor); ok {
				return n.TapSelectorNth
			}
			return firstOnly(s.TapSelector)
		})
}

func hoverBySelector() Tool {
	return selectorTool("hover_by_selector", "Move the pointer over the element a CSS selector or XPath finds on a web page.",
		"act on page elements by selector", "hovered over", func(s device.SelectorActor) selectorAct {
			if n, ok := s.(nthSelectorActor); ok {
				return n.HoverSelectorNth
			}
			return firstOnly(s.HoverSelector)
		})
}

func secondaryClickBySelector() Tool {
	return selectorTool("secondary_click_by_selector", "Right-click the element a CSS selector or XPath finds on a web page (its context menu).",
		"act on page elements by selector", "right-clicked", func(s device.SelectorActor) selectorAct {
			if n, ok := s.(nthSelectorActor); ok {
				return n.SecondaryClickSelectorNth
			}
			return firstOnly(s.SecondaryClickSelector)
		})
}
