package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestHostPolicy(t *testing.T) {
	p, err := ParseHostPolicy(" shop.example , *.cdn.example,10.0.0.7,")
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{"shop.example": true, "SHOP.example.": true, "a.cdn.example": true, "cdn.example": true,
		"10.0.0.7": true, "evil.example": false, "shop.example.evil": false, "xcdn.example": false, "": false, "[::1]": false} {
		if got := p.Allows(host); got != want {
			t.Errorf("Allows(%q) = %v, want %v", host, got, want)
		}
	}
	if any, _ := ParseHostPolicy(""); !any.Any() || !any.Allows("anything.example") {
		t.Error("the empty policy does not allow every host")
	}
	for _, bad := range []string{"http://x.example", "x.example:80", "*", "a*.example", "user@x"} {
		if _, err := ParseHostPolicy(bad); err == nil {
			t.Errorf("ParseHostPolicy(%q) took it", bad)
		}
	}
}

// With --web-allow, the browser loads only from the hosts it names: a URL to open, a link, a
// page's own request to another host all stop at the node's proxy, and the other host never
// sees a request.
func TestBrowserKeepsToTheAllowedHosts(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Host+r.URL.RequestURI())
		mu.Unlock()
		port := r.Host[strings.LastIndex(r.Host, ":")+1:]
		fmt.Fprintf(w, `<!doctype html><a id="out" href="http://127.0.0.1:%s/secret-link">out</a><script>
fetch("http://127.0.0.1:%s/secret-fetch").catch(() => {}).finally(() => fetch("/after"));
</script>`, port, port)
	}))
	t.Cleanup(srv.Close)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	saw := func(part string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range seen {
			if strings.Contains(s, part) {
				return true
			}
		}
		return false
	}
	allow, _ := ParseHostPolicy("localhost")
	proxy, err := StartProxy(allow, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = proxy.Close() })
	d := startBrowserWith(t, Options{Serial: "web-allow", Allow: allow, Proxy: proxy.Addr()})
	ctx := context.Background()

	if err := d.LaunchApp(ctx, srv.URL+"/"); !errors.Is(err, ErrBlocked) {
		t.Fatalf("opening 127.0.0.1 with only localhost allowed: %v", err)
	}
	if err := d.LaunchApp(ctx, "http://localhost:"+port+"/start"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the page's request to its own host, after the one to another", func() bool { return saw("/after") })
	if err := d.TapSelector(ctx, "#out"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the link's navigation to end", func() bool {
		u, err := d.ForegroundApp(ctx)
		return err == nil && strings.Contains(u, "secret-link")
	})
	if saw("secret") {
		t.Errorf("a request reached a host the policy does not allow: %v", seen)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10s: %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition
	}
}
