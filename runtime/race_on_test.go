//go:build race

package runtime_test

// raceEnabled: under the race detector goja's heap watchdog is too slow to
// catch a memory bomb within a test's time limit.
const raceEnabled = true
