package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// send_to_clipboard's limit is in bytes, as its description says, not in characters: 10,000
// three-byte characters are refused by size, 3,333 of them (9,999 bytes) go through.
func TestSendToClipboardCountsBytes(t *testing.T) {
	d := newAbled()
	var got []string
	d.SetClipboardFn = func(_ context.Context, s string) error { got = append(got, s); return nil }
	_, err := runOp(t, "send_to_clipboard", d, `{"text":"`+strings.Repeat("你", 10000)+`"}`)
	wantCode(t, err, broker.CodeBadInput)
	if !strings.Contains(err.Error(), "30000 bytes") {
		t.Errorf("refusal does not name the size: %v", err)
	}
	mustRun(t, "send_to_clipboard", d, `{"text":"`+strings.Repeat("你", 3333)+`"}`)
	if len(got) != 1 || len(got[0]) != 9999 {
		t.Fatalf("the driver got %d texts, want the 9,999-byte one only", len(got))
	}
}
