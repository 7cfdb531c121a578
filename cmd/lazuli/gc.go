package main

import (
	"os"
	"runtime"
)

// The server's live heap is small (about 1 MB while serving small requests),
// so with Go's defaults (GOGC=100, a 4 MB minimum heap goal) it collects
// every few megabytes of allocation: dozens of cycles a second under load,
// whose fixed costs (stopping the world, scanning stacks and globals,
// sweeping, the sweeper's yields to the scheduler) took a fifth of the
// server's CPU time per small request. A ballast, a pointer-free allocation
// that is never touched, raises the heap goal by its size: the collector
// then runs about a tenth as often, while the ballast's pages, never
// written, occupy no physical memory. With a large live heap (a memory
// store holding gigabytes) it changes the goal by a few percent only.

// ballastSize is the heap a collection may leave unused.
const ballastSize = 16 << 20

// ballast keeps the ballast reachable for the life of the process.
var ballast []byte

// reserveHeap allocates the ballast unless the operator tuned the
// collector with GOGC or GOMEMLIMIT.
func reserveHeap() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	ballast = make([]byte, ballastSize)
	runtime.KeepAlive(ballast)
}
