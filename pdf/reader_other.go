//go:build !linux

package pdf

import "syscall"

// childAttributes is nothing beyond Linux: a reading process ends at its CPU limit instead.
func childAttributes() *syscall.SysProcAttr { return nil }
