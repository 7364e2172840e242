//go:build race

package wait

// raceFactor stretches test timeouts under the race detector (see Scale).
const raceFactor = 4
