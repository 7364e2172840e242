// Package testutil holds helpers shared by the tests of this module:
// polling assertions (Eventually) and in-process servers on 127.0.0.1:0
// (StartNamesrv, StartBroker, StartBrokerWith, NewBrokerConfigs).
// Nothing outside _test.go files may import it.
package testutil
