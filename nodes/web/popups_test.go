package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/corral-farm/corral/nodes/tools"
)

// close_popups closes a web page's cookie banner by declining, and a dialog by its OK: the
// page records which button was clicked.
func TestClosePopupsOnAWebPage(t *testing.T) {
	var mu sync.Mutex
	var clicked []string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><meta name="viewport" content="width=device-width,initial-scale=1">
<p>The shop</p>
<div id="cookie-consent" style="position:fixed;bottom:0;left:0;right:0;height:200px;background:#eee">
  <p>We use cookies.</p><button id="accept">Accept all</button> <button id="reject">Reject all</button></div>
<div role="dialog" id="promo" style="position:fixed;top:100px;left:20px;width:300px;height:150px;background:#fff">
  <p>New: free shipping</p><button id="ok">OK</button></div>
<script>
for (const b of document.querySelectorAll("button")) b.addEventListener("click", e => {
  navigator.sendBeacon("/clicked", e.target.id); e.target.parentElement.remove(); });
</script>`)
	})
	mux.HandleFunc("POST /clicked", func(_ http.ResponseWriter, r *http.Request) {
		var b [32]byte
		n, _ := r.Body.Read(b[:])
		mu.Lock()
		clicked = append(clicked, string(b[:n]))
		mu.Unlock()
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	d := startBrowserWith(t, Options{Serial: "web-popups"})
	ctx := context.Background()
	if err := d.LaunchApp(ctx, srv.URL+"/"); err != nil {
		t.Fatal(err)
	}
	out, err := tools.DefaultOps()["close_popups"].Run(ctx, &tools.Task{Driver: d, Args: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "two buttons clicked", func() bool { mu.Lock(); defer mu.Unlock(); return len(clicked) >= 2 })
	mu.Lock()
	defer mu.Unlock()
	if len(clicked) != 2 || !slices.Contains(clicked, "reject") || !slices.Contains(clicked, "ok") {
		t.Errorf("close_popups clicked %v (%+v), want reject and ok", clicked, out.Data)
	}
}
