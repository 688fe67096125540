//go:build !linux

package android

import "os/exec"

// dieWithParent does nothing here: only Linux can tie a child's life to its parent's. A node
// that crashes, or a test that times out, may leave its adb server running;
// `adb -P PORT kill-server` ends it.
func dieWithParent(*exec.Cmd) {}
