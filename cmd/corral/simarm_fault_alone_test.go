package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

// A fault's kind or length given without its count strikes nothing: `corral sim arm --alarm 3`
// and `--freeze-for 5s` were accepted silently and did nothing. They are refused, saying what
// to add.
func TestSimArmRefusesAFaultWithoutItsCount(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--alarm", "3"}, "--alarm does nothing without --alarm-after N"},
		{[]string{"--freeze-for", "5s"}, "--freeze-for does nothing without --freeze-after N"},
		{[]string{"--camera-stall-for", "5s"}, "--camera-stall-for does nothing without --camera-stall-after N"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // a twin that starts (the fault accepted) stops at once
		err := simArm(ctx, append([]string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--pty=false"}, c.args...), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("corral sim arm %v: %v, want it refused: %q", c.args, err, c.want)
		}
	}
}
