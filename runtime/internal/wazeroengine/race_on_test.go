//go:build race

package wazeroengine

// raceEnabled: the race detector's shadow memory inflates RSS, so RSS
// bounds are not checked under -race.
const raceEnabled = true
