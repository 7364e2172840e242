//go:build !race

package broker_test

// raceAllocSlack is 0 without the race detector: the budgets hold as written.
const raceAllocSlack = 0
