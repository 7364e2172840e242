package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNamesrvCmdPrintConfig(t *testing.T) {
	var out, errOut bytes.Buffer
	if rc := run([]string{"-p"}, &out, &errOut, nil); rc != 0 {
		t.Fatalf("rc=%d stderr=%s", rc, errOut.String())
	}
	for _, want := range []string{"listenPort=9876\n", "productEnvName=center\n", "orderMessageEnable=false\n", "serverWorkerThreads=8\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-p output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestNamesrvCmdConfigFile(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "ns.conf")
	content := "listenPort = 19876\norderMessageEnable:TRUE\nserverWorkerThreads=x\nmystery=1\n"
	if err := os.WriteFile(conf, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if rc := run([]string{"-c", conf, "-p"}, &out, &errOut, nil); rc != 0 {
		t.Fatalf("rc=%d stderr=%s", rc, errOut.String())
	}
	for _, want := range []string{"load config properties file OK, " + conf, "listenPort=19876\n", "orderMessageEnable=true\n",
		"serverWorkerThreads=8\n", "configStorePath=" + conf + "\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.Contains(errOut.String(), "serverWorkerThreads") || !strings.Contains(errOut.String(), "unknown key mystery") {
		t.Errorf("warnings missing: %s", errOut.String())
	}
	if rc := run([]string{"-c", conf + ".missing"}, &out, &errOut, nil); rc == 0 {
		t.Fatal("missing config file must fail")
	}
}

func TestNamesrvCmdLogFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-logFormat", "console", "-logLevel", "warn", "-logDir", t.TempDir(), "-logFile", "-p"}
	if rc := run(args, &out, &errOut, nil); rc != 0 {
		t.Fatalf("rc=%d stderr=%s", rc, errOut.String())
	}
	for _, args := range [][]string{{"-logFormat", "xml"}, {"-logLevel", "trace"}} {
		errOut.Reset()
		if rc := run(args, &out, &errOut, nil); rc != 1 || !strings.Contains(errOut.String(), "logging: bad option") {
			t.Errorf("%v: rc=%d stderr=%q", args, rc, errOut.String())
		}
	}
}
