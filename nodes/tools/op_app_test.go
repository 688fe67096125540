package tools

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/corral-farm/corral/broker"
)

func TestListPackages(t *testing.T) {
	d := newAbled()
	res := mustRun(t, "list_packages", d, `{}`)
	if pk, ok := res["packages"].([]any); !ok || len(pk) != 0 {
		t.Fatalf("no packages should be an empty list, got %#v", res["packages"])
	}
	d.ListPackagesFn = func(context.Context) ([]string, error) { return []string{"com.b", "com.a"}, nil }
	res = mustRun(t, "list_packages", d, `{}`)
	if got := res["packages"].([]any); len(got) != 2 || got[0] != "com.a" {
		t.Fatalf("packages %v, want sorted", got)
	}
	_, err := runOp(t, "list_packages", newFake(), `{}`)
	wantCode(t, err, broker.CodeUnsupported)
}

func TestAppLaunchTerminate(t *testing.T) {
	d := newAbled()
	var calls []string
	d.LaunchAppFn = func(_ context.Context, p string) error { calls = append(calls, "launch "+p); return nil }
	d.TerminateAppFn = func(_ context.Context, p string) error { calls = append(calls, "stop "+p); return nil }
	mustRun(t, "app_launch", d, `{"packageName":"com.android.settings"}`)
	mustRun(t, "app_terminate", d, `{"packageName":"com.apple.mobile-safari_2"}`)
	if strings.Join(calls, ",") != "launch com.android.settings,stop com.apple.mobile-safari_2" {
		t.Fatalf("calls %v", calls)
	}
	for _, args := range []string{
		`{}`, `{"packageName":""}`, `{"packageName":"com.x; reboot"}`, `{"packageName":"com.x\n"}`,
		`{"packageName":"` + strings.Repeat("a", 256) + `"}`, `{"package":"com.x"}`, `{"packageName":7}`,
	} {
		for _, op := range []string{"app_launch", "app_terminate"} {
			_, err := runOp(t, op, d, args)
			wantCode(t, err, broker.CodeBadInput)
		}
	}
	if len(calls) != 2 {
		t.Fatalf("bad input reached the driver: %v", calls)
	}
	_, err := runOp(t, "app_launch", newFake(), `{"packageName":"com.x"}`)
	wantCode(t, err, broker.CodeUnsupported)
}

func TestGetSource(t *testing.T) {
	d := newAbled()
	res := mustRun(t, "get_source", d, `{}`)
	if res["source"] != "<hierarchy/>" || res["packageName"] != "" {
		t.Fatalf("result %v", res)
	}
	res = mustRun(t, "get_source", d, `{"packageName":"com.x"}`)
	if res["packageName"] != "com.x" {
		t.Fatalf("packageName not echoed: %v", res)
	}
	big := strings.Repeat("é", MaxSourceBytes) // two bytes each
	d.SourceFn = func(context.Context) (string, error) { return big, nil }
	res = mustRun(t, "get_source", d, `{}`)
	src := res["source"].(string)
	if len(src) > MaxSourceBytes || !utf8.ValidString(src) || !strings.Contains(res["message"].(string), "cut") {
		t.Fatalf("big source: %d bytes, valid %v, message %q", len(src), utf8.ValidString(src), res["message"])
	}
	_, err := runOp(t, "get_source", d, `{"packageName":"a b"}`)
	wantCode(t, err, broker.CodeBadInput)
	_, err = runOp(t, "get_source", newFake(), `{}`)
	wantCode(t, err, broker.CodeUnsupported)
}
