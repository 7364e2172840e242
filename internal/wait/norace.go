//go:build !race

package wait

// raceFactor is 1 without the race detector: timeouts are taken as written.
const raceFactor = 1
