//go:build race

package enginetest

// RaceSlowdown is how much longer a deadline a test gives a program that
// must not end with TIMEOUT, under the race detector (deadlineOf).
const RaceSlowdown = 3
