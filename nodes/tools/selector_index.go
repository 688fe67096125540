package tools

import (
	"context"
	"fmt"

	"github.com/corral-farm/corral/nodes/device"
)

// HttpRunner's general option index picks among a selector's matches: its browser driver sends
// it as element_index, the index-th element in document order from 0 (uixt's TapBySelector,
// HoverBySelector, RightClickBySelector). The by-selector tools honour it, and a negative index
// counts from the end (-1 the last), as tap_ocr's and tap_cv's do; HttpRunner sends none below
// 1, so there -1 acts on the first. One past the last is not found, saying how many match:
// retried with max_retry_times, let pass with ignore_NotFoundError.

// selectorAct acts on the index-th element selector matches.
type selectorAct func(ctx context.Context, selector string, index int) error

// nthSelectorActor is a SelectorActor that acts on any match, not only the first (the browser).
type nthSelectorActor interface {
	TapSelectorNth(ctx context.Context, selector string, index int) error
	HoverSelectorNth(ctx context.Context, selector string, index int) error
	SecondaryClickSelectorNth(ctx context.Context, selector string, index int) error
}

// firstOnly acts on the first match with a SelectorActor that knows no other, and refuses
// another index rather than act on the wrong element.
func firstOnly(act func(context.Context, string) error) selectorAct {
	return func(ctx context.Context, selector string, index int) error {
		if index != 0 {
			return fmt.Errorf("%w: this device acts on the first element a selector finds, not index %d; "+
				"say which in the selector, e.g. li:nth-of-type(3) or (//li)[3]", device.ErrUnsupported, index)
		}
		return act(ctx, selector)
	}
}

// atIndex names index in a message, where it is not the first match.
func atIndex(index int) string {
	if index == 0 {
		return ""
	}
	return fmt.Sprintf(" at index %d", index)
}
