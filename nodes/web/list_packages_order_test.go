package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/tools"
)

// list_packages sorted a browser's tabs by URL, so its order was not web_close_tab's tabIndex
// (oldest first): a page /z that opens /a in a new tab was listed [/a, /z], and closing tab 0
// "as listed" closed /z. It now lists the tabs oldest first.
func TestListPackagesListsTabsInTabIndexOrder(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><button id=open style="width:200px;height:100px" onclick="window.open('/a')">open</button>`))
	}))
	defer srv.Close()
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	if err := d.LaunchApp(ctx, srv.URL+"/z"); err != nil {
		t.Fatal(err)
	}
	if err := d.TapSelector(ctx, "#open"); err != nil {
		t.Fatal(err)
	}
	want := []string{srv.URL + "/z", srv.URL + "/a"}
	var got []string
	deadline := time.Now().Add(20 * time.Second)
	for !slices.Equal(got, want) {
		if time.Now().After(deadline) {
			t.Fatalf("list_packages answered %q; want the tabs oldest first, %q", got, want)
		}
		out, err := tools.DefaultOps()["list_packages"].Run(ctx, &tools.Task{Driver: d, Args: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		got = out.Data.(tools.PackagesResult).Packages
		time.Sleep(20 * time.Millisecond) // polling the browser's tabs until the new one is listed
	}
}
