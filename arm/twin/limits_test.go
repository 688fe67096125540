package twin_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/twin"
)

// A twin with Limits has travel limits and homing, as a rig with limit switches: $H homes, a
// target off its bed raises the soft-limit alarm (ALARM:2) instead of moving, and the client
// reports it by name with what to do. The twin used to move to X-500 and answer $H error:5.
func TestTwinHasTravelLimitsAndHoming(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tw, err := twin.Start(twin.Options{Seed: 3, Speed: 8, Limits: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })
	addr, err := tw.GRBL.ServeTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, err := grbl.DialTCP(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	if err := c.Send(ctx, "$H"); err != nil {
		t.Fatalf("$H: %v, want the gantry homed", err)
	}
	if err := c.Rapid(ctx, 50, 60); err != nil {
		t.Fatalf("a move inside the bed: %v", err)
	}
	if _, err := c.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	err = c.Rapid(ctx, -500, 60)
	if err == nil {
		_, err = c.WaitIdle(ctx)
	}
	var alarm *grbl.Alarm
	if !errors.As(err, &alarm) || alarm.Code != 2 {
		t.Fatalf("G0 X-500: %v, want the soft-limit alarm (ALARM:2)", err)
	}
	for _, want := range []string{"Soft limit", "travel"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("G0 X-500: %q does not say %q", err, want)
		}
	}
	if st := c.Status(); st.State != grbl.StateAlarm || st.MPos.X < 0 {
		t.Fatalf("after G0 X-500: %+v, want in alarm with the gantry kept on the bed", st)
	}
}
