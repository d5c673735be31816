//go:build !race

package wazeroengine

const raceEnabled = false
