package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// toolForeground names the app in front: on a browser device, the page's URL.
const toolForeground = "get_foreground_app"

// textless says why a screen shows no text. A browser's page that shows none is blank
// (about:blank) or not loaded yet, not a canvas: its URL, when the gateway serves
// get_foreground_app, tells a page from an app. A tree without a single element is a page's too
// (a phone's holds its window at least, even a game's, and an iPhone's source fails instead).
func (p *Plan) textless(ctx context.Context, c Caller, src map[string]any, elements int) string {
	url := p.pageURL(ctx, c, src)
	switch {
	case url == "about:blank":
		return "the page is blank (about:blank): no page is open yet; open it first (app_launch with its URL), " +
			"or check the URL the steps open"
	case url != "":
		if p.opts.Hide != nil {
			url = p.opts.Hide(url)
		}
		what := "its UI tree lists no element"
		if elements > 0 {
			what = "none of its elements has text or a label"
		}
		return fmt.Sprintf("the page at %s shows no text yet (%s): it may still be loading "+
			"(a longer expect_timeout waits for it), or it is not the page meant: check the URL", clip(url, 200), what)
	case elements == 0:
		return "the page shows no text yet: its UI tree lists no element at all, as a browser's blank page (about:blank) " +
			"or one still loading does: wait longer (expect_timeout), or check the URL the steps opened"
	}
	return noText
}

// pageURL is the URL of the page in front of the device get_source read (src: its serial and
// lease), "" when the gateway does not serve get_foreground_app or what is in front is no page.
func (p *Plan) pageURL(ctx context.Context, c Caller, src map[string]any) string {
	if !p.cat.Has(toolForeground) {
		return ""
	}
	args := map[string]any{}
	for k, v := range src {
		if p.cat.Takes(toolForeground, k) {
			args[k] = v
		}
	}
	res, err := c.CallTool(ctx, newRequest(toolForeground, args))
	if err != nil || res == nil || res.IsError {
		return ""
	}
	var out struct {
		PackageName string `json:"packageName"`
	}
	if b, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(b, &out) != nil {
		return ""
	}
	if !strings.Contains(out.PackageName, ":") { // an app's package: com.example.app
		return ""
	}
	return out.PackageName
}
