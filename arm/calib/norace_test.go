//go:build !race

package calib

const raceEnabled = false
