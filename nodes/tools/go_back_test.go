package tools

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

func TestHomeScreenAndGoBack(t *testing.T) {
	d := newAbled()
	var keys []string
	d.PressKeyFn = func(_ context.Context, k string) error { keys = append(keys, k); return nil }
	home := mustRun(t, "home_screen", d, `{}`)
	back := mustRun(t, "go_back", d, ``)
	if strings.Join(keys, ",") != "HOME,BACK" {
		t.Fatalf("keys %v", keys)
	}
	if !strings.Contains(home["hint"].(string), "home screen") || !strings.Contains(back["hint"].(string), "home_screen") {
		t.Errorf("hints %q / %q", home["hint"], back["hint"])
	}
	for _, op := range []string{"home_screen", "go_back"} {
		_, err := runOp(t, op, d, `{"bbox":[0,0,1,1]}`)
		wantCode(t, err, broker.CodeBadInput)
		_, err = runOp(t, op, newFake(), `{}`)
		wantCode(t, err, broker.CodeUnsupported)
	}
}

// iOS has no BACK key: go_back swipes right from the left edge.
func TestGoBackOnIOSSwipesFromTheEdge(t *testing.T) {
	d, calls := swiper()
	d.info.Platform = device.PlatformIOS
	res := mustRun(t, "go_back", d, `{}`)
	want := swipeCall{device.Point{X: 0, Y: 1200}, device.Point{X: 647, Y: 1200}, 300 * time.Millisecond, 0}
	if len(*calls) != 1 || (*calls)[0] != want {
		t.Fatalf("swipes %+v, want %+v", *calls, want)
	}
	if !strings.Contains(res["message"].(string), "left edge") {
		t.Errorf("message %q", res["message"])
	}
	f := newFake()
	f.info.Platform = device.PlatformIOS
	_, err := runOp(t, "go_back", f, `{}`)
	wantCode(t, err, broker.CodeUnsupported)
}
