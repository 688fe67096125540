package rig

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corral-farm/corral/arm/twin"
)

// The helper app of corral sim arm takes what HTTPClipboard posts, and says what it refuses.
func TestHTTPClipboardReachesTheTwinsPhone(t *testing.T) {
	tw, err := twin.Start(twin.Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })
	srv := httptest.NewServer(tw.ClipboardHandler())
	t.Cleanup(srv.Close)
	ctx := context.Background()
	if err := (HTTPClipboard{URL: srv.URL}).SetClipboard(ctx, "héllo, phone"); err != nil {
		t.Fatal(err)
	}
	if got := tw.Phone.Clipboard(); got != "héllo, phone" {
		t.Errorf("the phone's clipboard holds %q", got)
	}
	err = HTTPClipboard{URL: srv.URL}.SetClipboard(ctx, "bad \xff byte")
	if err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("non-UTF-8 text: %v", err)
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %s, want 405", resp.Status)
	}
	srv.Close()
	if err := (HTTPClipboard{URL: srv.URL}).SetClipboard(ctx, "x"); err == nil || !strings.Contains(err.Error(), "helper app running") {
		t.Errorf("helper gone: %v", err)
	}
}

// A command helper gets the text on its standard input; one that fails says why without
// repeating the text, even when it echoes it.
func TestCommandClipboard(t *testing.T) {
	out := filepath.Join(t.TempDir(), "clip")
	ctx := context.Background()
	if err := (CommandClipboard{Args: []string{"sh", "-c", `cat > "$0"`, out}}).SetClipboard(ctx, "secret text"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "secret text" {
		t.Fatalf("the command got %q (%v)", b, err)
	}
	err := CommandClipboard{Args: []string{"sh", "-c", `echo "no clipboard for: $(cat)" >&2; exit 3`}}.SetClipboard(ctx, "secret text")
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "no clipboard for: [redacted]") ||
		strings.Contains(err.Error(), "secret") {
		t.Errorf("failing helper: %v", err)
	}
	// A short text is taken out where it stands whole, as task records do (internal/redact),
	// not out of every word that holds its letters.
	err = CommandClipboard{Args: []string{"sh", "-c", `echo "helper refused \"$(cat)\", not set" >&2; exit 3`}}.SetClipboard(ctx, "e")
	if err == nil || !strings.Contains(err.Error(), `helper refused "[redacted]", not set`) {
		t.Errorf("failing helper, short text: %v", err)
	}
}

// A rig without a helper says how to give it one, and moves nothing.
func TestRigWithoutClipboardHelper(t *testing.T) {
	r := startRig(t, 3, false)
	moves := r.d.Moves()
	err := r.d.SetClipboard(context.Background(), "text")
	if !errors.Is(err, ErrNoClipboard) || !strings.Contains(err.Error(), "clipboard: url of a helper app, or command") {
		t.Errorf("no helper: %v", err)
	}
	if r.d.Moves() != moves {
		t.Error("the rig moved")
	}
}
