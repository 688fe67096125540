package firefox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// However Firefox's stderr is cut into writes, the same address is found (one in what it
// printed), and the same lines are kept before it.
func FuzzStderrWatch(f *testing.F) {
	f.Add("*** You are running in headless mode.\nWebDriver BiDi listening on ws://127.0.0.1:39905\nmore\n", 7)
	f.Add("WebDriver BiDi listening on ws://127.0.0.1:1\n", 30)
	f.Add("no address\npartial WebDriver BiDi listening on ws://", 50)
	f.Fuzz(func(t *testing.T, out string, cut int) {
		cut = min(max(cut, 0), len(out))
		whole, split := watch(out), watch(out[:cut], out[cut:])
		if whole != split {
			t.Fatalf("%q in one write: %q; cut at %d: %q", out, whole, cut, split)
		}
		if whole.url != "" && (!strings.HasPrefix(whole.url, "ws://") || !strings.Contains(out, whole.url)) {
			t.Fatalf("found %q in %q", whole.url, out)
		}
	})
}

type watched struct{ url, said string }

// watch writes parts to a stderrWatch: the address it found, and what it kept.
func watch(parts ...string) watched {
	w := newStderrWatch()
	for _, p := range parts {
		w.Write([]byte(p))
	}
	var got watched
	select {
	case got.url = <-w.found:
	default:
	}
	got.said = w.said()
	return got
}

// A binary that exits without listening fails Start with what it printed.
func TestStartFails(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "firefox")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho 'no display here' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := Start(ctx, Options{Path: fake})
	if err == nil || !strings.Contains(err.Error(), "exited before") || !strings.Contains(err.Error(), "no display here") {
		t.Fatalf("Start: %v", err)
	}
}
