package firefox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNoContext says that Firefox has no top-level browsing context to use.
var ErrNoContext = errors.New("firefox: no top-level browsing context (tab)")

// Page is a top-level browsing context (a tab) of the browser.
type Page struct {
	b  *Browser
	id string
}

// Page returns the browser's first tab (the one it started with), its viewport set to the
// size of the options.
func (b *Browser) Page(ctx context.Context) (*Page, error) {
	res, err := b.Command(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0})
	if err != nil {
		return nil, err
	}
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal(res, &tree); err != nil {
		return nil, fmt.Errorf("firefox: browsingContext.getTree: %w", err)
	}
	if len(tree.Contexts) == 0 {
		return nil, ErrNoContext
	}
	p := &Page{b: b, id: tree.Contexts[0].Context}
	// --window-size does not size a headless page's viewport (it stayed 1366×682): set it here.
	_, err = b.Command(ctx, "browsingContext.setViewport", map[string]any{
		"context": p.id, "viewport": map[string]any{"width": b.opts.Width, "height": b.opts.Height},
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Navigate loads url and waits until the page has loaded (its load event).
func (p *Page) Navigate(ctx context.Context, url string) error {
	_, err := p.b.Command(ctx, "browsingContext.navigate", map[string]any{"context": p.id, "url": url, "wait": "complete"})
	return err
}

// Evaluate evaluates a JavaScript expression in the page, awaits it if it is a promise, and
// returns its value as JSON (null for undefined); an exception thrown is an error.
func (p *Page) Evaluate(ctx context.Context, expr string) (json.RawMessage, error) {
	// BiDi returns typed remote values; the page's own JSON.stringify gives plain JSON instead.
	wrapped := "(async () => JSON.stringify(await (\n" + expr + "\n)) ?? 'null')()"
	res, err := p.b.Command(ctx, "script.evaluate", map[string]any{
		"expression": wrapped, "target": map[string]any{"context": p.id}, "awaitPromise": true, "resultOwnership": "none",
	})
	if err != nil {
		return nil, err
	}
	var r struct {
		Type   string `json:"type"` // success or exception
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, fmt.Errorf("firefox: script.evaluate: %w", err)
	}
	if r.Type != "success" {
		return nil, fmt.Errorf("firefox: the page threw: %s", r.ExceptionDetails.Text)
	}
	return json.RawMessage(r.Result.Value), nil
}

// Click moves the mouse to (x, y), in CSS pixels of the page's viewport, and clicks its left
// button there, as a user would: the page gets pointer, mouse and click events.
func (p *Page) Click(ctx context.Context, x, y float64) error {
	_, err := p.b.Command(ctx, "input.performActions", map[string]any{
		"context": p.id,
		"actions": []any{map[string]any{
			"type": "pointer", "id": "mouse", "parameters": map[string]any{"pointerType": "mouse"},
			"actions": []any{
				map[string]any{"type": "pointerMove", "x": x, "y": y, "origin": "viewport"},
				map[string]any{"type": "pointerDown", "button": 0},
				map[string]any{"type": "pointerUp", "button": 0},
			},
		}},
	})
	return err
}
