package wdasim

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// scope says where a route is served: at its own path, under /session/:sid, or both, as
// WebDriverAgent registers it (FBRoute's withoutSession).
type scope uint8

const (
	bare      scope = 1 << iota // /path
	inSession                   // /session/:sid/path
)

type route struct {
	method string
	path   string // after /session/:sid when scoped; a "*" segment matches any one segment
	scope  scope
	handle func(*call) (any, error)
}

// call is one request to a route.
type call struct {
	ctx  context.Context
	r    *http.Request
	sid  string // from the path; "" when not scoped
	body []byte
}

// table lists the routes served, WebDriverAgent's paths and scopes.
func (s *Server) table() []route {
	get, post, del := http.MethodGet, http.MethodPost, http.MethodDelete
	both := bare | inSession
	return []route{
		{get, "/status", bare, s.status},
		{post, "/session", bare, s.createSession},
		{get, "", inSession, s.getSession},
		{del, "", inSession, s.deleteSession},
		{get, "/window/size", inSession, s.windowSize},
		{get, "/wda/screen", both, s.screen},
		{get, "/screenshot", both, s.screenshot},
		{get, "/source", both, s.source},
		{post, "/wda/tap", inSession, s.tap},
		{post, "/wda/tap/*", inSession, s.tap}, // the older form, with an element id ("0") in the path
		{post, "/wda/doubleTap", inSession, s.doubleTap},
		{post, "/wda/touchAndHold", inSession, s.touchAndHold},
		{post, "/wda/dragfromtoforduration", inSession, s.drag},
		{post, "/actions", inSession, s.actions},
		{post, "/wda/keys", inSession, s.keys},
		{post, "/wda/pressButton", inSession, s.pressButton},
		{post, "/wda/setPasteboard", inSession, s.setPasteboard},
		{post, "/wda/homescreen", bare, s.homescreen},
		{post, "/wda/lock", both, s.lock},
		{post, "/wda/unlock", both, s.unlock},
		{get, "/wda/locked", both, s.locked},
		{get, "/wda/activeAppInfo", both, s.activeAppInfo},
		{post, "/wda/apps/launch", inSession, s.launchApp},
		{post, "/wda/apps/activate", inSession, s.activateApp},
		{post, "/wda/apps/terminate", inSession, s.terminateApp},
		{post, "/wda/apps/state", inSession, s.appState},
	}
}

// find returns the route for method and path, or nil.
func (s *Server) find(method, path string, scoped bool) *route {
	want := bare
	if scoped {
		want = inSession
	}
	for i := range s.routes {
		rt := &s.routes[i]
		if rt.method == method && rt.scope&want != 0 && matchPath(rt.path, path) {
			return rt
		}
	}
	return nil
}

func matchPath(pattern, path string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == path
	}
	ps, qs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if ps[i] != qs[i] && !(ps[i] == "*" && qs[i] != "") {
			return false
		}
	}
	return true
}

// decodeArgs decodes the JSON body of c into v. An empty body is an empty object.
func decodeArgs(c *call, v any) error {
	if len(bytes.TrimSpace(c.body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.body, v); err != nil {
		return errInvalidArgument("the request body is not the JSON this route takes: " + clipText(err.Error()))
	}
	return nil
}
