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
		{"a\tdevice\nb\tunauthorized\n", []Event{{Kind: Added, Serial: "a", State: "device"}, {Kind: Unusable, Serial: "b", State: "unauthorized"}}},
		{"a\tdevice\nb\tunauthorized\n", nil},
		{"a\tdevice\nb\tdevice\n", []Event{{Kind: Added, Serial: "b", State: "device"}}},
		{"a\toffline\nb\tdevice\n", []Event{{Kind: Removed, Serial: "a", State: "offline"}, {Kind: Unusable, Serial: "a", State: "offline"}}},
		{"b\tdevice\n", []Event{{Kind: Gone, Serial: "a"}}},
		{"", []Event{{Kind: Removed, Serial: "b", State: ""}}},
		{"a\tdevice\n", []Event{{Kind: Added, Serial: "a", State: "device"}}},
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
