// Package client is a Go client for the 5.x controller request API (the
// requests a broker in controller mode, or an admin tool, sends to the
// controller). It finds the Raft leader among the configured controller
// addresses with CONTROLLER_GET_METADATA_INFO and sends every request that
// must be answered by the leader there, refreshing the leader and retrying
// once when a controller answers CONTROLLER_NOT_LEADER.
//
// Wire: requests and answers are those of rocketmq-all-5.3.3 (codes in
// remoting/code, headers in remoting/header/controller.go, bodies in
// remoting/body/controller.go). A non-SUCCESS answer is returned as a
// *remoting.Error carrying the controller's code and remark.
//
// Usage:
//
//	cc := client.New(rc, client.ParseAddrs("127.0.0.1:9878;127.0.0.1:9868"), lg)
//	id, err := cc.GetNextBrokerID(ctx, "DefaultCluster", "broker-a")
//	err = cc.ApplyBrokerID(ctx, "DefaultCluster", "broker-a", id, client.RegisterCheckCode(addr, time.Now()))
//	reg, err := cc.RegisterBroker(ctx, "DefaultCluster", "broker-a", id, addr)
package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// ErrNoLeader is returned when no configured controller names a leader.
var ErrNoLeader = errors.New("controller client: no controller leader found")

// DefaultTimeout bounds one request when ctx has no earlier deadline (Java's
// BrokerOuterAPI uses 3000 ms for every controller call).
const DefaultTimeout = 3 * time.Second

// Client sends controller requests over a remoting.Client it does not own.
type Client struct {
	rc    *remoting.Client
	addrs []string
	lg    *zap.Logger

	mu     sync.Mutex // guards leader
	leader string     // last known leader address; "" = unknown
}

// New returns a client for the controllers at addrs (see ParseAddrs).
func New(rc *remoting.Client, addrs []string, lg *zap.Logger) *Client {
	if lg == nil {
		lg = zap.NewNop()
	}
	return &Client{rc: rc, addrs: addrs, lg: lg}
}

// ParseAddrs splits a controllerAddr value ("a:1;b:2", Java also accepts
// ',') into addresses, dropping blanks.
func ParseAddrs(s string) []string {
	var out []string
	for _, a := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' }) {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// RegisterCheckCode builds the registerCheckCode a broker applies for its id
// with: "<brokerAddress>;<unix millis>", as 5.x's ReplicasManager does.
func RegisterCheckCode(brokerAddr string, now time.Time) string {
	return brokerAddr + ";" + strconv.FormatInt(now.UnixMilli(), 10)
}

// Addrs returns the configured controller addresses.
func (c *Client) Addrs() []string { return c.addrs }

// Leader returns the last known leader address, "" if none yet.
func (c *Client) Leader() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leader
}

func (c *Client) setLeader(addr string) {
	c.mu.Lock()
	c.leader = addr
	c.mu.Unlock()
}

// GetMetaData asks the controller at addr who leads (CONTROLLER_GET_METADATA_INFO).
func (c *Client) GetMetaData(ctx context.Context, addr string) (*header.GetMetaDataResponseHeader, error) {
	resp, err := c.invoke(ctx, addr, codec.NewRequest(code.ControllerGetMetadataInfo, nil, nil))
	if err != nil {
		return nil, err
	}
	if resp.Code != code.Success {
		return nil, remoting.NewError(resp.Code, resp.Remark)
	}
	var h header.GetMetaDataResponseHeader
	if err := h.FromExtFields(resp.ExtFields); err != nil {
		return nil, err
	}
	return &h, nil
}

// RefreshLeader asks the configured controllers in turn and records the first
// leader address one of them names.
func (c *Client) RefreshLeader(ctx context.Context) (string, error) {
	var errs []error
	for _, a := range c.addrs {
		md, err := c.GetMetaData(ctx, a)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a, err))
			continue
		}
		if md.ControllerLeaderAddress != "" {
			c.setLeader(md.ControllerLeaderAddress)
			return md.ControllerLeaderAddress, nil
		}
	}
	c.setLeader("")
	return "", errors.Join(append([]error{ErrNoLeader}, errs...)...)
}

// leaderAddr returns the known leader or looks it up.
func (c *Client) leaderAddr(ctx context.Context) (string, error) {
	if l := c.Leader(); l != "" {
		return l, nil
	}
	return c.RefreshLeader(ctx)
}

// invoke sends one request to addr and waits at most DefaultTimeout.
func (c *Client) invoke(ctx context.Context, addr string, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
	ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
	defer cancel()
	return c.rc.InvokeSync(ctx, addr, req)
}

// leaderAttempts bounds toLeader's tries. A node that Raft has just made
// leader answers CONTROLLER_NOT_LEADER until its leadership barrier commits,
// while every peer already names it, so a retry needs a pause, not only a
// fresh leader address.
const leaderAttempts = 6

// toLeader sends a request built by mk to the leader and returns a SUCCESS
// answer, or the answer's code as a *remoting.Error. On CONTROLLER_NOT_LEADER
// or a transport error it refreshes the leader and tries again after a short
// backoff (50 ms doubling), at most leaderAttempts times within ctx.
func (c *Client) toLeader(ctx context.Context, mk func() *codec.RemotingCommand, ok ...int32) (*codec.RemotingCommand, error) {
	var lastErr error
	pause := 50 * time.Millisecond
	for attempt := 0; attempt < leaderAttempts; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, errors.Join(lastErr, ctx.Err())
			case <-time.After(pause):
			}
			pause *= 2
		}
		addr, err := c.leaderAddr(ctx)
		if err != nil {
			return nil, err
		}
		resp, err := c.invoke(ctx, addr, mk())
		if err != nil {
			c.setLeader("")
			lastErr = err
			continue
		}
		if resp.Code == code.ControllerNotLeader {
			c.setLeader("")
			lastErr = remoting.NewError(resp.Code, resp.Remark)
			continue
		}
		if resp.Code == code.Success {
			return resp, nil
		}
		for _, k := range ok {
			if resp.Code == k {
				return resp, nil
			}
		}
		return resp, remoting.NewError(resp.Code, resp.Remark)
	}
	return nil, lastErr
}
