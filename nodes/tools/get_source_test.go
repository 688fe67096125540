package tools

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/corral-farm/corral/broker"
)

func TestGetSource(t *testing.T) {
	d := newAbled()
	res := mustRun(t, "get_source", d, `{}`)
	if res["source"] != "<hierarchy/>" || res["packageName"] != "" {
		t.Fatalf("result %v", res)
	}
	d.ListPackagesFn = func(context.Context) ([]string, error) { return []string{"com.x"}, nil }
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
