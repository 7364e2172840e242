// Command nsbench measures GET_ROUTEINFO_BY_TOPIC throughput of a name
// server: 10 brokers each registering 100 topics, then closed-loop route
// lookups over N connections with par requests in flight on each (by default
// from a lean pipelining client, -client=remoting uses remoting.Client).
// Without -addr it runs an in-process name server
// (the RSS printed then covers server and clients).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rocketmq-go/rmq/internal/procstat"
	"github.com/rocketmq-go/rmq/namesrv"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

func main() {
	addr := flag.String("addr", "", "name server address (empty: start one in-process)")
	conns := flag.Int("conns", 16, "connections")
	dur := flag.Duration("d", 5*time.Second, "measurement time")
	brokers := flag.Int("brokers", 10, "brokers to register")
	topics := flag.Int("topics", 100, "topics per broker")
	par := flag.Int("par", 1, "concurrent requests per connection")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the measurement here")
	client := flag.String("client", "raw", "raw: one goroutine per connection pipelining par requests; remoting: remoting.Client.InvokeSync from par goroutines per connection")
	serverPID := flag.Int("serverpid", 0, "also print the VmRSS of this process (an external name server)")
	flag.Parse()
	if *addr == "" {
		dir, _ := os.MkdirTemp("", "nsbench")
		defer os.RemoveAll(dir)
		cfg := namesrv.NewNamesrvConfig()
		cfg.KVConfigPath, cfg.ConfigStorePath = dir+"/kv.json", dir+"/ns.properties"
		nc := namesrv.NewNettyServerConfig()
		nc.ListenAddr = "127.0.0.1:0"
		ns, err := namesrv.New(cfg, nc, nil)
		if err == nil {
			err = ns.Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer ns.Shutdown(context.Background())
		*addr = ns.Addr().String()
	}
	if err := register(*addr, *brokers, *topics); err != nil {
		fmt.Fprintln(os.Stderr, "register:", err)
		os.Exit(1)
	}
	if *profile != "" {
		if f, err := os.Create(*profile); err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	srvPID := strconv.Itoa(*serverPID)
	selfCPU0, srvCPU0 := procstat.CPUTime("self"), procstat.CPUTime(srvPID)
	var lat []time.Duration
	if *client == "remoting" {
		lat = run(*addr, *conns, *par, *topics, *dur)
	} else {
		lat = runRaw(*addr, *conns, *par, *topics, *dur)
	}
	selfCPU1, srvCPU1 := procstat.CPUTime("self"), procstat.CPUTime(srvPID)
	slices.Sort(lat)
	n := len(lat)
	fmt.Printf("GET_ROUTEINFO_BY_TOPIC client=%s brokers=%d topics=%d conns=%d par=%d: %d req in %v = %.0f QPS, p50=%v p99=%v, VmRSS=%s",
		*client, *brokers, *topics, *conns, *par, n, *dur, float64(n)/dur.Seconds(), pct(lat, 0.50), pct(lat, 0.99), vmRSS("self"))
	fmt.Printf(" cpu/req=%s", perRequest(selfCPU0, selfCPU1, n))
	if *serverPID > 0 {
		fmt.Printf(" serverVmRSS=%s serverCPU/req=%s", vmRSS(srvPID), perRequest(srvCPU0, srvCPU1, n))
	}
	fmt.Println()
}

func register(addr string, brokers, topics int) error {
	c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
	defer c.Shutdown(context.Background())
	for b := 0; b < brokers; b++ {
		w := body.TopicConfigSerializeWrapper{DataVersion: body.DataVersion{Timestamp: time.Now().UnixMilli(), Counter: 1}, TopicConfigTable: map[string]body.TopicConfig{}}
		for i := 0; i < topics; i++ {
			tc := body.NewTopicConfig(fmt.Sprintf("BenchTopic%d", i))
			tc.ReadQueueNums, tc.WriteQueueNums = 8, 8
			w.TopicConfigTable[tc.TopicName] = tc
		}
		data, _ := (&body.RegisterBrokerBody{TopicConfigSerializeWrapper: w, FilterServerList: []string{}}).Encode(false)
		h := &header.RegisterBrokerRequestHeader{BrokerName: fmt.Sprintf("broker-%d", b), BrokerAddr: fmt.Sprintf("127.0.0.%d:10911", b+1),
			ClusterName: "BenchCluster", HAServerAddr: fmt.Sprintf("127.0.0.%d:10912", b+1)}
		resp, err := c.InvokeSync(context.Background(), addr, codec.NewRequest(code.RegisterBroker, h.ToExtFields(), data))
		if err != nil {
			return err
		}
		if resp.Code != code.Success {
			return fmt.Errorf("code %d %s", resp.Code, resp.Remark)
		}
	}
	return nil
}

// runRaw does closed-loop lookups with par requests in flight on each of
// conns connections, each driven by one goroutine (see rawLoop).
func runRaw(addr string, conns, par, topics int, dur time.Duration) []time.Duration {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	stop := time.Now().Add(dur)
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func(seed int) {
			defer wg.Done()
			lat, err := rawLoop(addr, seed, par, topics, stop)
			if err != nil {
				fmt.Fprintln(os.Stderr, "lookup failed:", err)
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}(i * 7)
	}
	wg.Wait()
	return all
}

// run does closed-loop lookups: par goroutines on each of conns connections.
func run(addr string, conns, par, topics int, dur time.Duration) []time.Duration {
	var mu sync.Mutex
	var all []time.Duration
	var wg sync.WaitGroup
	stop := time.Now().Add(dur)
	for i := 0; i < conns; i++ {
		c := remoting.NewClient(remoting.NewNettyClientConfig(), nil)
		defer c.Shutdown(context.Background())
		for k := 0; k < par; k++ {
			wg.Add(1)
			go func(seed int) {
				defer wg.Done()
				lat := loop(c, addr, seed, topics, stop)
				mu.Lock()
				all = append(all, lat...)
				mu.Unlock()
			}(i*par + k)
		}
	}
	wg.Wait()
	return all
}

func loop(c *remoting.Client, addr string, seed, topics int, stop time.Time) []time.Duration {
	lat := make([]time.Duration, 0, 1<<12)
	for j := seed; time.Now().Before(stop); j++ {
		h := &header.GetRouteInfoRequestHeader{Topic: fmt.Sprintf("BenchTopic%d", j%topics)}
		t0 := time.Now()
		resp, err := c.InvokeSync(context.Background(), addr, codec.NewRequest(code.GetRouteinfoByTopic, h.ToExtFields(), nil))
		if err != nil || resp.Code != code.Success {
			fmt.Fprintln(os.Stderr, "lookup failed:", err)
			return lat
		}
		lat = append(lat, time.Since(t0))
	}
	return lat
}

func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(float64(len(sorted)-1)*p)]
}

func vmRSS(pid string) string {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return "n/a"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "n/a"
}
