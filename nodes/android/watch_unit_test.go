package android

import (
	"context"
	"slices"
	"strconv"
	"testing"
)

func TestWatcherUpdate(t *testing.T) {
	ch := make(chan Event, 32)
	w := &watcher{ctx: context.Background(), ch: ch, states: map[string]string{}}
	steps := []struct {
		list string
		want []Event
	}{
		{"a\tdevice\nb\tunauthorized\n", []Event{{Added, "a", "device"}, {Unusable, "b", "unauthorized"}}},
		{"a\tdevice\nb\tunauthorized\n", nil},
		{"a\tdevice\nb\tdevice\n", []Event{{Added, "b", "device"}}},
		{"a\toffline\nb\tdevice\n", []Event{{Removed, "a", "offline"}, {Unusable, "a", "offline"}}},
		{"b\tdevice\n", nil},
		{"", []Event{{Removed, "b", ""}}},
		{"a\tdevice\n", []Event{{Added, "a", "device"}}},
	}
	for i, s := range steps {
		w.fromTracker(parseDeviceList(s.list))
		var got []Event
		for len(ch) > 0 {
			got = append(got, <-ch)
		}
		if !slices.Equal(got, s.want) {
			t.Errorf("step %d (%q): events %v, want %v", i, s.list, got, s.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
