package android

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill cmd when the process that started it dies: a node that
// crashes, or a test that times out (and so never runs its cleanup), leaves no adb server
// behind. It acts only on a crash or a kill: a clean stop is PrivateServer.Stop's job. The
// kernel ties the child to the starting OS thread, which Go keeps for the process's life
// unless the starting goroutine had locked it (none of ours do).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
