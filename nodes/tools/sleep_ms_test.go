package tools

import (
	"context"
	"testing"
)

func TestSleepMS(t *testing.T) {
	out, err := DefaultOps()["sleep_ms"].Run(context.Background(), &Task{Driver: newFake(), Args: []byte(`{"milliseconds":5}`)})
	if err != nil {
		t.Fatal(err)
	}
	if r := out.Data.(SleepMSResult); r.Milliseconds != 5 {
		t.Fatalf("result %+v", r)
	}
}
