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
	IgnoreNotFound bool `json:"ignore_NotFoundError,omitempty" desc:"Succeed when nothing matches the selector"`
	Behaviour
}

// Check trims the selector, and refuses HttpRunner's general option index, which acting on
// the first match cannot honour (the selector says which).
func (a *SelectorArgs) Check() error {
	if a.Selector = strings.TrimSpace(a.Selector); a.Selector == "" {
		return BadInput("selector is empty: give a CSS selector (#login) or an XPath (//button[text()='OK'])")
	}
	if a.Index != 0 {
		return BadInput("the by-selector tools act on the first element the selector finds and take no index (got %d): "+
			"say which in the selector, e.g. li:nth-of-type(3) or (//li)[3]", a.Index)
	}
	return nil
}

// SelectorResult is the structured result of the by-selector tools (HttpRunner seed).
type SelectorResult struct {
	Message  string `json:"message" jsonschema:"What was done"`
	Selector string `json:"selector" jsonschema:"The CSS selector or XPath of the element acted on"`
	Found    bool   `json:"found" jsonschema:"False when nothing matched and ignore_NotFoundError let it pass"`
	Hint     string `json:"hint,omitempty"`
}

// selectorTool is one of the by-selector tools: act on what a selector finds, as doing says.
func selectorTool(name, description, doing, done string, act func(device.SelectorActor) func(context.Context, string) error) Tool {
	return Define[SelectorArgs, SelectorResult](Tool{Name: name, Description: description,
		Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortText, Keys: []string{"selector"}, Usage: `a CSS selector or an XPath, e.g. "#submit"`},
		Needs: []Ability{Need[device.SelectorActor](doing)},
	}, func(ctx context.Context, t *Task, a SelectorArgs) (Output, error) {
		err := act(t.Driver.(device.SelectorActor))(ctx, a.Selector)
		switch {
		case errors.Is(err, device.ErrNoElement) && a.IgnoreNotFound:
			return Output{Data: SelectorResult{Message: fmt.Sprintf("nothing matches %q; ignored (ignore_NotFoundError)", a.Selector),
				Selector: a.Selector, Hint: hintAction}}, nil
		case err != nil:
			return Output{}, err
		}
		return Output{Data: SelectorResult{Message: fmt.Sprintf("%s %q", done, a.Selector), Selector: a.Selector, Found: true, Hint: hintAction}}, nil
	})
}

func tapBySelector() Tool {
	return selectorTool("tap_by_selector", "Tap the element a CSS selector or XPath finds on a web page, scrolled into view, at its centre.",
		"act on page elements by selector", "tapped", func(s device.SelectorActor) func(context.Context, string) error { return s.TapSelector })
}

func hoverBySelector() Tool {
	return selectorTool("hover_by_selector", "Move the pointer over the element a CSS selector or XPath finds on a web page.",
		"act on page elements by selector", "hovered over", func(s device.SelectorActor) func(context.Context, string) error { return s.HoverSelector })
}

func secondaryClickBySelector() Tool {
	return selectorTool("secondary_click_by_selector", "Right-click the element a CSS selector or XPath finds on a web page (its context menu).",
		"act on page elements by selector", "right-clicked", func(s device.SelectorActor) func(context.Context, string) error {
			return s.SecondaryClickSelector
		})
}
