//go:build linux

package integration

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocketmq-go/rmq/internal/message"
	"github.com/rocketmq-go/rmq/internal/testutil"
	"github.com/rocketmq-go/rmq/internal/wait"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// The descriptor-exhaustion test runs the broker in a child process (this
// test binary, re-executed with fdChildEnv set) because RLIMIT_NOFILE is
// per process: lowering it here would starve every parallel test.

const (
	fdChildEnv   = "RMQ_FDLIMIT_CHILD"
	fdTopic      = "IntegFDLimitTopic"
	fdQueues     = 8
	fdHeadroom   = 48 // descriptors left free in the child once it is up
	fdReadyToken = "FDLIMIT_READY"
)

// TestBrokerFDExhaustionKeepsListening: a broker that runs out of file
// descriptors (accept fails with EMFILE) keeps its existing connections,
// keeps acknowledging sends on them, and accepts new connections again once
// descriptors are freed; every acknowledged message is then pullable.
// Apache's Netty acceptor behaves the same; gnet's own acceptor treats
// EMFILE as fatal and stops the whole engine.
func TestBrokerFDExhaustionKeepsListening(t *testing.T) {
	if os.Getenv(fdChildEnv) == "1" {
		fdLimitChild(t)
		return
	}
	child := startFDChild(t)
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })

	var acked []string
	for i := range 2 * fdQueues { // every queue gets its ConsumeQueue file now
		acked = append(acked, fdSend(t, c, child.broker, "before", i))
	}

	hogs := exhaustFDs(t, child)
	for i := range 2 * fdQueues { // existing connection keeps working
		acked = append(acked, fdSend(t, c, child.broker, "during", i))
	}
	// The name server shares the process, so its accept fails too.
	nsHog, err := net.DialTimeout("tcp", child.namesrv, 5*time.Second)
	if err != nil {
		t.Fatalf("dial name server: %v", err)
	}
	hogs = append(hogs, nsHog)
	for _, h := range hogs {
		_ = h.Close()
	}

	// New connections are served again: a fresh client (fresh connection)
	// gets an answer from the broker and from the name server.
	route := header.GetRouteInfoRequestHeader{Topic: fdTopic}
	for addr, req := range map[string]*codec.RemotingCommand{
		child.broker:  codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil),
		child.namesrv: codec.NewRequest(code.GetRouteinfoByTopic, route.ToExtFields(), nil),
	} {
		testutil.Eventually(t, 10*time.Second, func() error {
			fresh := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
			defer func() { _ = fresh.Shutdown(context.Background()) }()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			resp, err := fresh.InvokeSync(ctx, addr, req)
			if err != nil {
				return err
			}
			if resp.Code != code.Success {
				return fmt.Errorf("%s code %d: %s", addr, resp.Code, resp.Remark)
			}
			return nil
		})
	}
	fresh := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	t.Cleanup(func() { _ = fresh.Shutdown(context.Background()) })
	acked = append(acked, fdSend(t, fresh, child.broker, "after", 0))

	got := map[string]bool{}
	testutil.Eventually(t, 10*time.Second, func() error {
		for _, b := range fdPullAll(t, fresh, child.broker) {
			got[b] = true
		}
		for _, b := range acked {
			if !got[b] {
				return fmt.Errorf("acknowledged message %q not pullable (%d of %d pulled)", b, len(got), len(acked))
			}
		}
		return nil
	})
}

type fdChild struct {
	pid     int
	broker  string
	namesrv string
	limit   int
}

// startFDChild re-executes this test in a child that starts a name server
// and a broker, lowers its descriptor limit and reports its addresses. The
// child exits when its stdin closes; cleanup kills it if it does not.
func startFDChild(t *testing.T) fdChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBrokerFDExhaustionKeepsListening$", "-test.timeout=3m")
	cmd.Env = append(os.Environ(), fdChildEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, fdReadyToken) {
				ready <- line
			} else {
				t.Logf("child: %s", line)
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(wait.Scale(20 * time.Second)):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	select {
	case line := <-ready:
		var ch fdChild
		if _, err := fmt.Sscanf(line, fdReadyToken+" broker=%s namesrv=%s limit=%d", &ch.broker, &ch.namesrv, &ch.limit); err != nil {
			t.Fatalf("child ready line %q: %v", line, err)
		}
		ch.pid = cmd.Process.Pid
		return ch
	case <-exited:
		t.Fatal("child exited before it was ready")
	case <-time.After(wait.Scale(60 * time.Second)):
		t.Fatal("child not ready within 60s")
	}
	return fdChild{}
}

// fdLimitChild is the child's side: start the servers, create the topic,
// then leave only fdHeadroom descriptors free and wait for stdin to close.
func fdLimitChild(t *testing.T) {
	ns := testutil.StartNamesrv(t)
	b := testutil.StartBroker(t, ns.Addr().String())
	tc := body.NewTopicConfig(fdTopic)
	tc.ReadQueueNums, tc.WriteQueueNums, tc.Perm = fdQueues, fdQueues, 6
	b.Topics().UpdateTopicConfig(tc)
	b.RegisterBrokerAll(false)

	highest := 0
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil {
			highest = max(highest, n)
		}
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	lim.Cur = uint64(highest + 1 + fdHeadroom)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "%s broker=%s namesrv=%s limit=%d\n", fdReadyToken, b.BrokerAddr(), ns.Addr(), lim.Cur)
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent is done
}

// fdCount is the number of descriptors process pid holds.
func fdCount(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// exhaustFDs opens more connections to the child's broker than it has free
// descriptors, and waits until it holds as many as its limit allows.
func exhaustFDs(t *testing.T, ch fdChild) []net.Conn {
	t.Helper()
	free := ch.limit - fdCount(t, ch.pid)
	var hogs []net.Conn
	t.Cleanup(func() {
		for _, h := range hogs {
			_ = h.Close()
		}
	})
	for range free + 32 { // the surplus waits in the accept backlog
		h, err := net.DialTimeout("tcp", ch.broker, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %s after %d connections: %v", ch.broker, len(hogs), err)
		}
		hogs = append(hogs, h)
	}
	testutil.Eventually(t, 10*time.Second, func() error {
		// limit-1: a descriptor may be in flight between accept and close.
		if n := fdCount(t, ch.pid); n < ch.limit-1 {
			return fmt.Errorf("child holds %d descriptors, limit %d: it closed connections or stopped accepting", n, ch.limit)
		}
		return nil
	})
	t.Logf("child at its descriptor limit %d: %d free before, %d connections opened", ch.limit, free, len(hogs))
	return hogs
}

func fdInvoke(c *remoting.Client, addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait.Scale(5*time.Second))
	defer cancel()
	return c.InvokeSync(ctx, addr, req)
}

// fdSend sends one message to queue i%fdQueues and returns its body once
// the broker acknowledged it.
func fdSend(t *testing.T, c *remoting.Client, addr, phase string, i int) string {
	t.Helper()
	b := phase + "-" + strconv.Itoa(i)
	h := header.SendMessageRequestHeader{ProducerGroup: "fd_pg", Topic: fdTopic, DefaultTopic: "TBW102",
		DefaultTopicQueueNums: 4, QueueID: int32(i % fdQueues), BornTimestamp: time.Now().UnixMilli(),
		Properties: message.MarshalProperties(map[string]string{message.PropertyWaitStoreMsgOK: "true"})}
	resp, err := fdInvoke(c, addr, codec.NewRequest(code.SendMessage, h.ToExtFields(), []byte(b)))
	if err != nil {
		t.Fatalf("send %s: %v", b, err)
	}
	if resp.Code != code.Success {
		t.Fatalf("send %s: code %d %s", b, resp.Code, resp.Remark)
	}
	return b
}

// fdPullAll pulls every queue of fdTopic from offset 0 and returns the
// bodies found.
func fdPullAll(t *testing.T, c *remoting.Client, addr string) []string {
	t.Helper()
	var bodies []string
	for qid := range int32(fdQueues) {
		for off := int64(0); ; {
			h := header.PullMessageRequestHeader{ConsumerGroup: "fd_cg", Topic: fdTopic, QueueID: qid, QueueOffset: off,
				MaxMsgNums: 32, SysFlag: 4 /* FLAG_SUBSCRIPTION */, Subscription: "*", SubVersion: time.Now().UnixMilli()}
			resp, err := fdInvoke(c, addr, codec.NewRequest(code.PullMessage, h.ToExtFields(), nil))
			if err != nil {
				t.Fatalf("pull queue %d offset %d: %v", qid, off, err)
			}
			if resp.Code != code.Success {
				break
			}
			msgs, err := message.DecodeRecords(resp.Body, true)
			if err != nil {
				t.Fatalf("decode pull of queue %d: %v", qid, err)
			}
			if len(msgs) == 0 {
				break
			}
			for _, m := range msgs {
				bodies = append(bodies, string(m.Body))
			}
			off = msgs[len(msgs)-1].QueueOffset + 1
		}
	}
	return bodies
}
