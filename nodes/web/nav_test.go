package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
)

// chain serves /p/N, each page a link #next to /p/N+1 (its answer a little slow, so a tab
// is between two pages long enough for a call to land there), and a field.
func chain(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/p/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		time.Sleep(30 * time.Millisecond) // a server that takes a moment, as real ones do
		fmt.Fprintf(w, `<!doctype html><title>%d</title><a id="next" href="/p/%d" style="display:block;width:300px;height:80px">Next</a>
<input id="field" style="display:block;width:300px;height:40px"><button id="nothing">Nothing</button>`, n, n+1)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// A call made at once after a tap that follows a link finds the next page in front, not a
// tab between two pages (whose URL was empty, and whose BACK failed "Not attached to an
// active page"); many times over, so the race is met.
func TestCallRightAfterATapThatNavigates(t *testing.T) {
	d := startBrowser(t, "phone")
	base := chain(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := d.LaunchApp(ctx, base+"/p/0"); err != nil {
		t.Fatal(err)
	}
	front := func(i int, want string) {
		t.Helper()
		u, err := d.ForegroundApp(ctx)
		if err != nil || u != base+want {
			t.Fatalf("round %d: in front %q (%v), want %s", i, u, err, want)
		}
	}
	next := centreOf(t, ctx, d, "next") // the page has no viewport meta tag: zoomed out to fit
	for i := range 15 {
		if err := d.TapSelector(ctx, "#next"); err != nil {
			t.Fatalf("round %d: tap: %v", i, err)
		}
		front(i, fmt.Sprintf("/p/%d", i+1))
		if err := d.PressKey(ctx, "BACK"); err != nil {
			t.Fatalf("round %d: back: %v", i, err)
		}
		front(i, fmt.Sprintf("/p/%d", i))
		if err := d.Tap(ctx, next, 0); err != nil { // #next, by its pixels
			t.Fatalf("round %d: tap_xy: %v", i, err)
		}
		if err := d.PressKey(ctx, "BACK"); err != nil {
			t.Fatalf("round %d: back after tap_xy: %v", i, err)
		}
		front(i, fmt.Sprintf("/p/%d", i))
		if err := d.TapSelector(ctx, "#next"); err != nil {
			t.Fatalf("round %d: tap: %v", i, err)
		}
		if _, err := d.Source(ctx); err != nil {
			t.Fatalf("round %d: source: %v", i, err)
		}
	}
	// A tap that navigates nowhere returns at once.
	start := time.Now()
	if err := d.TapSelector(ctx, "#nothing"); err != nil {
		t.Fatal(err)
	}
	if dt := time.Since(start); dt > requestGrace {
		t.Errorf("a tap that navigates nowhere took %s", dt)
	}
}

// A tab that stays between two pages past the call's deadline says so in words, not in the
// DevTools protocol's code.
func TestBetweenPagesInWords(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	tries := 0
	err := whileNavigating(ctx, func() error {
		tries++
		return &cdproto.Error{Code: -32000, Message: "Not attached to an active page"}
	})
	if !errors.Is(err, ErrNavigating) || strings.Contains(err.Error(), "32000") || tries < 2 {
		t.Errorf("after %d tries: %v", tries, err)
	}
	other := errors.New("something else")
	if err := whileNavigating(ctx, func() error { return other }); err != other {
		t.Errorf("another error: %v", err)
	}
}
