package firefox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// startBrowser starts Firefox for a test; without one the test is skipped, or fails under
// CORRAL_REQUIRE_TOOLS.
func startBrowser(t *testing.T) *Browser {
	t.Helper()
	path, err := Find()
	if err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatalf("%v, and CORRAL_REQUIRE_TOOLS is set", err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b, err := Start(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

// A page loads, evaluates to JSON, throws as an error, takes a click where it was asked, and
// its errors (thrown and console.error) are collected.
func TestBrowser(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>bidi</title><body style="margin:0">
<div id="pad" style="width:400px;height:300px"></div>
<script>
document.getElementById('pad').addEventListener('pointerup', e => { window.clicked = [e.clientX, e.clientY, e.button]; });
console.error('logged on purpose');
setTimeout(() => { throw new Error('thrown on purpose'); });
</script>`)
	}))
	t.Cleanup(srv.Close)
	b := startBrowser(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	p, err := b.Page(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Navigate(ctx, srv.URL); err != nil {
		t.Fatal(err)
	}

	eval := func(expr string) string {
		t.Helper()
		v, err := p.Evaluate(ctx, expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		return string(v)
	}
	if got := eval(`[document.title, innerWidth, innerHeight]`); got != `["bidi",1280,800]` {
		t.Errorf("title and viewport: %s", got)
	}
	if got := eval(`new Promise(r => setTimeout(() => r({a: 1}), 10))`); got != `{"a":1}` {
		t.Errorf("an awaited promise: %s", got)
	}
	if got := eval(`undefined`); got != `null` {
		t.Errorf("undefined: %s", got)
	}
	if _, err := p.Evaluate(ctx, `nope.nope`); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a thrown ReferenceError: %v", err)
	}

	if err := p.Click(ctx, 123.5, 45); err != nil {
		t.Fatal(err)
	}
	var clicked []float64
	if err := json.Unmarshal([]byte(eval(`window.clicked || []`)), &clicked); err != nil {
		t.Fatal(err)
	}
	if len(clicked) != 3 || clicked[0] < 123 || clicked[0] > 124 || clicked[1] != 45 || clicked[2] != 0 {
		t.Errorf("the click landed at %v, want [123.5 45 0]", clicked)
	}

	for deadline := time.Now().Add(10 * time.Second); len(b.Errors()) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the page's errors: %q", b.Errors())
		}
	}
	errs := strings.Join(b.Errors(), "\n")
	if !strings.Contains(errs, "console: logged on purpose") || !strings.Contains(errs, "javascript: Error: thrown on purpose") {
		t.Errorf("the page's errors: %s", errs)
	}
}
