// Package testutil holds helpers shared by the tests of this module:
// polling assertions now, in-process servers (StartNamesrv/StartBroker) later.
// Nothing outside _test.go files may import it.
package testutil
