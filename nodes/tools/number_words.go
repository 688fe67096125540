package tools

import (
	"math"
	"strconv"
	"time"
)

// FormatNumber writes a number for a message as the caller would: a whole number whole
// (86400000, not 8.64e+07), a fraction in the shortest form that reads back the same (0.25),
// and only a number of 1e21 or more in exponent form, as JSON writes it (1e+308).
func FormatNumber(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// FormatMillis writes a bound in milliseconds with its length in words when that is a whole
// number of hours, minutes or seconds: 86400000 (24 h), 3600000 (1 h), 1500.
func FormatMillis(ms float64) string {
	s := FormatNumber(ms)
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "min"}, {time.Second, "s"}} {
		per := float64(u.d / time.Millisecond)
		if ms >= per && ms == math.Trunc(ms/per)*per && ms < 1e15 {
			return s + " (" + FormatNumber(ms/per) + " " + u.name + ")"
		}
	}
	return s
}

// countOf is n of noun in words: "1 swipe", "0 swipes", "3 swipes" (noun takes an s).
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
