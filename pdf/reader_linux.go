package pdf

import "syscall"

// childAttributes has the kernel kill a reading process when the thread that started it ends,
// so that no reading outlives a server that crashed.
func childAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
