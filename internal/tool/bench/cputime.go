package bench

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) this process has used.
// On a shared virtual machine whose host steals cycles, ops/s swings from
// run to run while CPU time per operation stays put, so Result reports both.
// For a target served in this process (--in-process) it covers client and
// server; for a child process or an external target, the client alone (the
// server's own CPU is then read from its process: Process).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
