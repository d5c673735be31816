//go:build !race

package enginetest

// raceSlowdown: see slowdown.
const raceSlowdown = 1
