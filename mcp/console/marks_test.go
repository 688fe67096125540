package console

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// shotHistory is a task history whose screenshots can be read, as broker.Client's.
type shotHistory struct {
	fakeHistory
	shots map[string][]byte
}

func (h *shotHistory) Screenshot(_ context.Context, name string) ([]byte, error) {
	b, ok := h.shots[name]
	if !ok {
		return nil, broker.ErrNotFound
	}
	return b, nil
}

func shotName(task, digit string) string {
	return "tasks/" + task + "/" + strings.Repeat(digit, 64) + ".jpg"
}

// markedRecords: a tap of d1 that kept a marked screen and names one of another task, and a
// tap of d2 that kept one.
func markedRecords() []broker.TaskResult {
	data := func(names ...string) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"message": "tapped", "markedScreenshots": names})
		return b
	}
	return []broker.TaskResult{
		{ID: "t_tap", Serial: "d1", Tool: "tap_xy", Outcome: broker.OutcomeSucceeded, Data: data(shotName("t_tap", "a"), shotName("t_else", "b"))},
		{ID: "t_d2", Serial: "d2", Tool: "tap_xy", Outcome: broker.OutcomeSucceeded, Data: data(shotName("t_d2", "c"))},
	}
}

// The timeline shows a task's marked screen as a thumbnail linking to the full image, which
// the console serves to those who may see the device, and only the marks of the device's
// recent tasks.
func TestTimelineShowsMarkedScreens(t *testing.T) {
	shots := map[string][]byte{shotName("t_tap", "a"): []byte("JPEG of t_tap"), shotName("t_else", "b"): []byte("JPEG of t_else"),
		shotName("t_d2", "c"): []byte("JPEG of t_d2")}
	srv := httptest.NewServer(New(Config{Farm: testFarm(), History: &shotHistory{fakeHistory{tasks: markedRecords()}, shots}, Authenticate: authenticate}))
	t.Cleanup(srv.Close)

	resp, body := get(t, srv, "/console/devices/d1/timeline", simToken)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	url := "/console/devices/d1/timeline?shot=" + strings.ReplaceAll(shotName("t_tap", "a"), "/", "%2F")
	if !strings.Contains(body, `<a href="`+html.EscapeString(url)+`"`) || !strings.Contains(body, `<img src="`+html.EscapeString(url)+`"`) {
		t.Fatalf("the timeline has no thumbnail linking to %s:\n%s", url, body)
	}
	if strings.Contains(body, "t_else") || strings.Count(body, "data-mark") != 1 {
		t.Errorf("a record's mark of another task is shown:\n%s", body)
	}

	resp, img := get(t, srv, url, simToken)
	if resp.StatusCode != http.StatusOK || img != "JPEG of t_tap" || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("the marked screen: %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), img)
	}
	for _, path := range []string{
		"/console/devices/d1/timeline?shot=" + shotName("t_else", "b"), // named, but of another task
		"/console/devices/d1/timeline?shot=" + shotName("t_d2", "c"),   // another device's
		"/console/devices/d1/timeline?shot=tasks/t_tap/../t_d2",
	} {
		if resp, body := get(t, srv, path, simToken); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d %q, want 404", path, resp.StatusCode, body)
		}
	}
	if resp, _ := get(t, srv, url, ""); resp.StatusCode == http.StatusOK {
		t.Error("a marked screen served without a token")
	}
	if resp, _ := get(t, srv, "/console/devices/d2/timeline?shot="+shotName("t_d2", "c"), simToken); resp.StatusCode != http.StatusNotFound {
		t.Error("a marked screen of a device the viewer may not use was served")
	}

	// A gateway whose history cannot read screenshots says so.
	bare := httptest.NewServer(New(Config{Farm: testFarm(), History: &fakeHistory{tasks: markedRecords()}, Authenticate: authenticate}))
	t.Cleanup(bare.Close)
	if resp, body := get(t, bare, url, simToken); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "cannot read screenshots") {
		t.Errorf("no screenshot reader: %d %s", resp.StatusCode, body)
	}
}

// Whatever a record's data holds, the timeline shows only marks of the record's own task, each
// served from its device's timeline.
func FuzzMarksOf(f *testing.F) {
	f.Add("t_1", "d1", `{"markedScreenshots":["`+shotName("t_1", "a")+`","tasks/t_2/x.jpg"]}`)
	f.Add("t_1", "a/b?c", `{"markedScreenshots":"tasks/t_1/"}`)
	f.Add("t_1", "d1", `{"markedScreenshots":[1,null,"tasks/t_1/../t_2/`+strings.Repeat("b", 64)+`.jpg"]`)
	f.Fuzz(func(t *testing.T, id, serial, data string) {
		for _, m := range marksOf(broker.TaskResult{ID: id, Serial: serial, Data: json.RawMessage(data)}) {
			if !broker.ScreenshotOfTask(m.Name, id) || !strings.HasPrefix(m.URL, "/console/devices/") || strings.Count(m.URL, "?") != 1 {
				t.Fatalf("task %q on %q shows %+v", id, serial, m)
			}
		}
	})
}
