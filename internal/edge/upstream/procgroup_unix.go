//go:build unix

package upstream

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// ownGroup starts cmd as the leader of a new process group, so that what
// it spawns (npx → node, sh → server) can be stopped with it.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// stopGroup ends what is left of cmd's process group once the leader has
// been reaped (the SDK's Close closes stdin, then signals the leader only):
// SIGTERM, then SIGKILL if members remain after grace. A group that is
// already empty is left alone; the group id cannot be reused while any
// member lives, and polling stops as soon as none does.
func stopGroup(cmd *exec.Cmd, grace time.Duration) (stopped int) {
	if cmd.Process == nil {
		return 0
	}
	pgid := cmd.Process.Pid
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		return 0 // ESRCH: nothing left
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return 1
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return 1
}
