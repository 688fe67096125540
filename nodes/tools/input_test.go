package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

func TestInput(t *testing.T) {
	d := newAbled()
	var typed []string
	d.InputTextFn = func(_ context.Context, s string) error { typed = append(typed, s); return nil }
	res := mustRun(t, "input", d, `{"text":"héllo\nworld"}`)
	if res["text"] != "héllo\nworld" || len(typed) != 1 || typed[0] != "héllo\nworld" {
		t.Fatalf("typed %q, result %v", typed, res)
	}
	full, _ := json.Marshal(map[string]string{"text": strings.Repeat("a", MaxInputBytes)})
	mustRun(t, "input", d, string(full))
	over, _ := json.Marshal(map[string]string{"text": strings.Repeat("a", MaxInputBytes+1)})
	for _, args := range []string{string(over), `{"text":""}`, `{}`, `{"text":5}`, `{"text":["a"]}`, `{"text":"a","enter":true}`} {
		_, err := runOp(t, "input", d, args)
		wantCode(t, err, broker.CodeBadInput)
	}
	if len(typed) != 2 {
		t.Fatalf("bad input reached the driver: %d calls", len(typed))
	}
	if err := checkArgs(&InputArgs{Text: "ab\xffc"}); err == nil {
		t.Fatal("invalid UTF-8 passed the check")
	}
	_, err := runOp(t, "input", newFake(), `{"text":"a"}`)
	wantCode(t, err, broker.CodeUnsupported)
}
