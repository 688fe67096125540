//go:build race

package calib

// raceEnabled: the race detector slows rendering tenfold; the accuracy test runs fewer seeds.
const raceEnabled = true
