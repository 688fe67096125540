package web

import (
	"context"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/tools"
)

// With its last tab closed (app_terminate of the page app_launch opened) a browser device has
// nothing in front, and get_foreground_app answers so: it failed, driver_error "cannot tell
// which app is in front (the device named none)".
func TestNothingInFrontOnceTheLastTabCloses(t *testing.T) {
	d := startBrowser(t, "phone")
	page := chain(t) + "/p/0"
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	run := func(name, args string) (tools.Output, error) {
		return tools.DefaultOps()[name].Run(ctx, &tools.Task{Driver: d, Args: []byte(args)})
	}
	if _, err := run("app_launch", `{"packageName":"`+page+`"}`); err != nil {
		t.Fatal(err)
	}
	if out, err := run("get_foreground_app", `{}`); err != nil || out.Data.(tools.ForegroundAppResult).PackageName != page {
		t.Fatalf("with %s open: %+v, %v", page, out, err)
	}
	if _, err := run("app_terminate", `{"packageName":"`+page+`"}`); err != nil {
		t.Fatal(err)
	}
	out, err := run("get_foreground_app", `{}`)
	if err != nil {
		t.Fatalf("with no tab open: %v, want an answer that nothing is", err)
	}
	want := tools.ForegroundAppResult{Message: "nothing is in front: no app is open (on a browser device, no tab); app_launch opens one"}
	if got, _ := out.Data.(tools.ForegroundAppResult); got != want {
		t.Errorf("with no tab open: %+v, want %+v", out.Data, want)
	}
	if pkgs, err := d.ListPackages(ctx); err != nil || len(pkgs) != 0 {
		t.Errorf("the tabs after: %v, %v; want none", pkgs, err)
	}
}
