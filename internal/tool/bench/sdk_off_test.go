//go:build !sdkbench

package bench

const sdkBuilt = false
