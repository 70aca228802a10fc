package main

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the child die with the test process, should the test
// be killed before its cleanups run.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
