package web

import (
	"encoding/json"
	"testing"
)

// force_quit on the home page (--web-home) quits nothing and says so (quit false), as on a
// phone's launcher; on another page it closes it and opens the home page (quit true). Through
// the front door, with the default home and with one given without its trailing slash.
func TestForceQuitOnTheHomePageQuitsNothing(t *testing.T) {
	r := newRecorder(t)
	for _, home := range []string{"", r.srv.URL} {
		d := startBrowserWith(t, Options{Serial: "web-home", Home: home})
		call, release := holdBrowser(t, d, "quitter")
		if text, failed := call("app_launch", map[string]any{"packageName": r.srv.URL + "/page2"}); failed {
			t.Fatal(text)
		}
		for i, wantQuit := range []bool{true, false, false} {
			text, failed := call("force_quit", map[string]any{})
			var got struct {
				Quit        bool
				PackageName string
			}
			if err := json.Unmarshal([]byte(text), &got); failed || err != nil {
				t.Fatalf("home %q: force_quit %d: %s (%v)", home, i+1, text, err)
			}
			if got.Quit != wantQuit {
				t.Errorf("home %q: force_quit %d answered quit %v, want %v: %s", home, i+1, got.Quit, wantQuit, text)
			}
		}
		release()
		_ = d.Close()
	}
}
