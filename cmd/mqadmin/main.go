// Command mqadmin is a small subset of Apache RocketMQ's admin tool
// (tools/MQAdminStartup), with its sub-command names, flags and output
// layout:
//
//	mqadmin queryMsgTraceById -n 127.0.0.1:9876 -i <msgId> [-t <traceTopic>]
//	mqadmin brokerStatus      -b 127.0.0.1:10911 | -n 127.0.0.1:9876 -c DefaultCluster
//
// -n may be left out when NAMESRV_ADDR is set; several name servers are
// separated by ';'. `mqadmin` alone lists the commands, `mqadmin help
// <command>` shows a command's flags. A failed command prints Java's
// "<SubCommand> command failed" line and the cause to stderr and, unlike
// Java, exits with status 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/internal/trace"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// timeout bounds one command (Java's admin calls time out after 3 s each,
// a key query after 12 s).
const timeout = 15 * time.Second

// command is one SubCommand.
type command struct {
	name, alias, desc string
	// javaClass names the Java class in failure messages.
	javaClass string
	// flags adds the command's options; exec runs it.
	flags func(fs *flag.FlagSet) func(ctx context.Context, e *env) error
}

// env is what a command runs with.
type env struct {
	namesrv []string
	client  *remoting.Client
	stdout  io.Writer
	stderr  io.Writer
}

var commands = []command{
	{name: "queryMsgTraceById", alias: "QueryMsgTraceById", desc: "query a message trace",
		javaClass: "QueryMsgTraceByIdSubCommand", flags: queryMsgTraceByIDFlags},
	{name: "brokerStatus", desc: "Fetch broker runtime status data",
		javaClass: "BrokerStatusSubCommand", flags: brokerStatusFlags},
}

func findCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name || (commands[i].alias != "" && commands[i].alias == name) {
			return &commands[i]
		}
	}
	return nil
}

func run(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		printHelp(stdout)
		return 0
	case len(args) == 2 && args[0] == "help":
		cmd := findCommand(args[1])
		if cmd == nil {
			fmt.Fprintf(stdout, "The sub command %s not exist.\n", args[1])
			return 1
		}
		fs, _, _ := newFlagSet(cmd, stdout)
		fs.Usage()
		return 0
	}
	cmd := findCommand(args[0])
	if cmd == nil {
		fmt.Fprintf(stdout, "The sub command %s not exist.\n", args[0])
		return 1
	}
	fs, exec, ns := newFlagSet(cmd, stderr)
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	e := &env{namesrv: namesrvAddrs(*ns), stdout: stdout, stderr: stderr,
		client: remoting.NewClient(remoting.NewNettyClientConfig(), zap.NewNop())}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = e.client.Shutdown(ctx)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := exec(ctx, e); err != nil {
		fmt.Fprintf(stderr, "org.apache.rocketmq.tools.command.SubCommandException: %s command failed\nCaused by: %v\n", cmd.javaClass, err)
		return 1
	}
	return 0
}

// newFlagSet builds a command's options with the global -n and -h.
func newFlagSet(cmd *command, out io.Writer) (*flag.FlagSet, func(context.Context, *env) error, *string) {
	fs := flag.NewFlagSet("mqadmin "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(out)
	ns := fs.String("n", "", "Name server address list, eg: 192.168.0.1:9876;192.168.0.2:9876")
	fs.StringVar(ns, "namesrvAddr", "", "same as -n")
	exec := cmd.flags(fs)
	fs.Usage = func() {
		fmt.Fprintf(out, "usage: mqadmin %s [flags]\n", cmd.name)
		fs.PrintDefaults()
	}
	return fs, exec, ns
}

// namesrvAddrs is -n, else NAMESRV_ADDR, split at ';'.
func namesrvAddrs(flagValue string) []string {
	v := flagValue
	if v == "" {
		v = os.Getenv("NAMESRV_ADDR")
	}
	var out []string
	for a := range strings.SplitSeq(v, ";") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func printHelp(w io.Writer) {
	fmt.Fprintf(w, "The most commonly used mqadmin commands are:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "   %-20s %s\n", c.name, c.desc)
	}
	fmt.Fprintf(w, "\nSee 'mqadmin help <command>' for more information on a specific command.\n")
}

// errNoNamesrv: Java would ask the address server; we need -n.
var errNoNamesrv = errors.New("no name server address: pass -n or set NAMESRV_ADDR")

// queryMsgTraceByIDFlags is QueryMsgTraceByIdSubCommand: -i msgId
// (required), -t traceTopic (default RMQ_SYS_TRACE_TOPIC).
func queryMsgTraceByIDFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	msgID := fs.String("i", "", "Message Id (required)")
	fs.StringVar(msgID, "msgId", "", "same as -i")
	topic := fs.String("t", trace.DefaultTopic, "The name value of message trace topic")
	fs.StringVar(topic, "traceTopic", trace.DefaultTopic, "same as -t")
	return func(ctx context.Context, e *env) error {
		id := strings.TrimSpace(*msgID)
		if id == "" {
			return errors.New("missing required option: i")
		}
		if len(e.namesrv) == 0 {
			return errNoNamesrv
		}
		views, err := trace.QueryTrace(ctx, e.client, e.namesrv, strings.TrimSpace(*topic), id)
		if err != nil && !errors.Is(err, trace.ErrBadRecord) {
			return err
		}
		trace.Print(e.stdout, views, time.Local)
		return nil
	}
}

// brokerStatusFlags is BrokerStatusSubCommand: with -b the broker's
// GET_BROKER_RUNTIME_INFO table, keys sorted (Java copies it into a
// TreeMap); with -c the same for every master and slave of the cluster,
// each line prefixed with the broker's address.
func brokerStatusFlags(fs *flag.FlagSet) func(context.Context, *env) error {
	addr := fs.String("b", "", "Broker address")
	fs.StringVar(addr, "brokerAddr", "", "same as -b")
	cluster := fs.String("c", "", "which cluster")
	fs.StringVar(cluster, "clusterName", "", "same as -c")
	return func(ctx context.Context, e *env) error {
		if a := strings.TrimSpace(*addr); a != "" {
			return printBrokerRuntimeStats(ctx, e, a, false)
		}
		c := strings.TrimSpace(*cluster)
		if c == "" {
			return nil // Java prints nothing without -b or -c
		}
		addrs, err := clusterBrokerAddrs(ctx, e, c)
		if err != nil {
			return err
		}
		for _, a := range addrs {
			if err := printBrokerRuntimeStats(ctx, e, a, true); err != nil {
				fmt.Fprintf(e.stderr, "%v\n", err) // Java prints the stack trace and goes on
			}
		}
		return nil
	}
}

// clusterBrokerAddrs is CommandUtil.fetchMasterAndSlaveAddrByClusterName:
// the addresses of every broker of the cluster, in java.util.HashSet order.
func clusterBrokerAddrs(ctx context.Context, e *env, cluster string) ([]string, error) {
	if len(e.namesrv) == 0 {
		return nil, errNoNamesrv
	}
	var errs []error
	for _, ns := range e.namesrv {
		resp, err := e.client.InvokeSync(ctx, ns, codec.NewRequest(code.GetBrokerClusterInfo, nil, nil))
		if err == nil && resp.Code != code.Success {
			err = fmt.Errorf("CODE: %d  DESC: %s", resp.Code, resp.Remark)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		info, err := body.DecodeClusterInfo(resp.Body)
		if err != nil {
			return nil, err
		}
		names, ok := info.ClusterAddrTable[cluster]
		if !ok {
			fmt.Fprint(e.stdout, "[error] Make sure the specified clusterName exists or the name server connected to is correct.")
			return nil, nil
		}
		var addrs []string
		for _, n := range names {
			if bd := info.BrokerAddrTable[n]; bd != nil {
				for _, a := range bd.BrokerAddrs {
					if !slices.Contains(addrs, a) {
						addrs = append(addrs, a)
					}
				}
			}
		}
		// HashSet order; within a bucket by address rather than by insertion.
		body.SortJavaHashOrder(addrs, body.JavaHashMapCapacity(len(addrs), 16))
		return addrs, nil
	}
	return nil, errors.Join(errs...)
}

// printBrokerRuntimeStats prints one broker's GET_BROKER_RUNTIME_INFO.
func printBrokerRuntimeStats(ctx context.Context, e *env, addr string, withAddr bool) error {
	resp, err := e.client.InvokeSync(ctx, addr, codec.NewRequest(code.GetBrokerRuntimeInfo, nil, nil))
	if err != nil {
		return err
	}
	if resp.Code != code.Success {
		return fmt.Errorf("CODE: %d  DESC: %s", resp.Code, resp.Remark)
	}
	kv, err := body.DecodeKVTable(resp.Body)
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(kv.Table))
	for k := range kv.Table {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if withAddr {
			fmt.Fprintf(e.stdout, "%-24s %-32s: %s\n", addr, k, kv.Table[k])
		} else {
			fmt.Fprintf(e.stdout, "%-32s: %s\n", k, kv.Table[k])
		}
	}
	return nil
}
