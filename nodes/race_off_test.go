//go:build !race

package nodes

const raceEnabled = false
