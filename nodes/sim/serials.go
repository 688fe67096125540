package sim

import (
	"fmt"
	"strconv"
)

// minSerialDigits keeps the serials a farm has long shown (sim-local-01): counts below 100
// are padded to two digits.
const minSerialDigits = 2

// Numbered is the serial of the i-th (from 1) of count simulated devices: prefix, a dash and
// i padded with zeros to the width of count (at least two digits), so every serial of one
// start has the same width and they sort in order: --sim 120 gives sim-local-001 …
// sim-local-120, not sim-local-01 … sim-local-120, where sim-local-100 sorts before
// sim-local-11. The same count gives the same serials at every start.
func Numbered(prefix string, i, count int) string {
	width := max(len(strconv.Itoa(count)), minSerialDigits)
	return fmt.Sprintf("%s-%0*d", prefix, width, i)
}
