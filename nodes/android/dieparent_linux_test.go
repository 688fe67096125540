package android

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill cmd when the test process dies, so that a test that
// times out (and so never runs its cleanup) leaves no adb server behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
