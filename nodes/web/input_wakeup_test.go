package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// press_button WAKEUP, a phone's key, is refused by a browser device as the caller's mistake
// (bad_input), naming the keys it has; nothing is pressed.
func TestBrowserRefusesWakeupAsBadInput(t *testing.T) {
	d := startBrowser(t, "phone")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := tools.DefaultOps()["press_button"].Run(ctx, &tools.Task{Driver: d, Args: json.RawMessage(`{"button":"WAKEUP"}`)})
	if got := tools.ErrorCode(err); got != broker.CodeBadInput || !strings.Contains(err.Error(), "a browser device presses") {
		t.Fatalf("press_button WAKEUP on a browser: code %s (%v)", got, err)
	}
}
