package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

func TestSendToClipboard(t *testing.T) {
	d := newAbled()
	var got []string
	d.SetClipboardFn = func(_ context.Context, s string) error { got = append(got, s); return nil }
	res := mustRun(t, "send_to_clipboard", d, `{"text":"héllo 'x' $(rm -rf /)"}`)
	if len(got) != 1 || got[0] != "héllo 'x' $(rm -rf /)" || res["characters"] != 21.0 || !strings.Contains(res["hint"].(string), "long_press") {
		t.Fatalf("clipboard %q result %v", got, res)
	}
	for _, args := range []string{`{}`, `{"text":""}`, `{"text":5}`, `{"text":"a","paste":true}`, `{"text":"` + strings.Repeat("a", MaxInputBytes+1) + `"}`} {
		_, err := runOp(t, "send_to_clipboard", d, args)
		wantCode(t, err, broker.CodeBadInput)
	}
	if len(got) != 1 {
		t.Fatalf("bad input reached the driver: %q", got)
	}
	if err := checkArgs(&ClipboardArgs{Text: "a\xff"}); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
	_, err := runOp(t, "send_to_clipboard", newFake(), `{"text":"a"}`)
	wantCode(t, err, broker.CodeUnsupported)
}
