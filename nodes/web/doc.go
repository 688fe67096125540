// Package web drives headless Chromium as devices of platform "web": one browser per device,
// over the DevTools protocol on a pipe (chromedp), emulating a phone, a tablet or a desktop
// (Profile). Touches are touch events at the page's CSS pixels, so pages see what a phone's
// finger makes; screenshots, sources and coordinates are device pixels (CSS pixels times the
// device pixel ratio), as on a phone.
//
// The catalog's tools reach a browser through the usual abilities (app_launch opens a URL, back
// goes back in the tab's history, get_source lists the DOM with pixel bounds in uiautomator's
// format), and HttpRunner's web tools through three of its own: elements by CSS selector or
// XPath (tap_by_selector, hover_by_selector, secondary_click_by_selector), a right click at a
// point (secondary_click), and tabs (web_close_tab).
package web
