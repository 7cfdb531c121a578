// Package cputime reads the CPU time this process has used. On a shared
// virtual machine whose host steals cycles, operations per second swing
// from run to run while CPU time per operation stays put, so the load
// generator and the codec benchmarks report both.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time, user and system, this process has used; zero
// when the system cannot say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
