package tools

import (
	"context"
	"testing"

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
