//go:build race

package upstream

// raceEnabled skips the tests that move tens of megabytes: under the race
// detector JSON is about ten times slower, and they add nothing it checks.
const raceEnabled = true
