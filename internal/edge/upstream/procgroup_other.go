//go:build !unix

package upstream

import (
	"os/exec"
	"time"
)

func ownGroup(*exec.Cmd) {}

func stopGroup(*exec.Cmd, time.Duration) int { return 0 }
