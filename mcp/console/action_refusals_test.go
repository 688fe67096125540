package console

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// An action a script sends with a bearer token, as it may on the console's reading paths, is
// refused saying that actions take the console's login and that scripts use /mcp; a number the
// body cannot hold is named with its range, as /mcp names it, not with Go's decoding error.
func TestActionRefusalsSayWhatToDo(t *testing.T) {
	acts := &fakeActions{}
	srv, _ := actionsConsole(t, testFarm(), acts)

	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/console/devices/d2/actions/home", nil)
	req.Header.Set("Authorization", "Bearer "+labToken)
	resp, text := do(t, req)
	var a actionAnswer
	_ = json.Unmarshal([]byte(text), &a)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(a.Message, "not a bearer token") || !strings.Contains(a.Message, "/mcp") ||
		strings.Contains(a.Message, "reload the page") {
		t.Errorf("a bearer token's action: %d %q; want 403 saying actions take the login and scripts use /mcp", resp.StatusCode, a.Message)
	}

	s := openSession(t, srv, labToken, "/devices/d2")
	for body, want := range map[string][]string{
		`{"x":1e309,"y":0}`:  {"bad tap: x: 1e309 is out of range", "0 to 1"},
		`{"x":0,"y":-1e999}`: {"bad tap: y: -1e999 is out of range", "0 to 1"},
		`{"x":"a","y":0}`:    {"bad tap: x is a JSON string", "x is a number"},
	} {
		status, a := s.act(t, "d2", "tap", body)
		for _, w := range want {
			if status != http.StatusBadRequest || !strings.Contains(a.Message, w) || strings.Contains(a.Message, "cannot unmarshal") {
				t.Errorf("tap %s: %d %q; want 400 with %q", body, status, a.Message, w)
			}
		}
	}
	// swipe's (this console's gateway serves no swipe_coordinate): the body as it decodes.
	if _, err := decodeActionBody(strings.NewReader(`{"from_x":0,"from_y":0,"to_x":1,"to_y":1,"duration":1e400}`)); err == nil ||
		!strings.Contains(err.Error(), "duration: 1e400 is out of range") || !strings.Contains(err.Error(), "seconds") {
		t.Errorf("a swipe's huge duration: %v", err)
	}
	if calls := acts.taken(); len(calls) != 0 {
		t.Errorf("refused actions reached the front door: %q", calls)
	}
}
