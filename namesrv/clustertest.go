package namesrv

// This file mirrors Java's ClusterTestRequestProcessor: with clusterTest=true,
// GET_ROUTEINFO_BY_TOPIC always carries the KV orderTopicConf, is written in
// the legacy fastjson form, and a topic unknown here is looked up in the
// product environment's name servers.

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// productEnvTimeout bounds one fallback lookup (Java's admin default is 3 s).
const productEnvTimeout = 3 * time.Second

// productEnv is the lazily started client of the product environment.
type productEnv struct {
	mu     sync.Mutex
	client *remoting.Client // nil until first use
}

func (e *productEnv) get(lg *zap.Logger) *remoting.Client {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.client == nil {
		e.client = remoting.NewClient(remoting.NewNettyClientConfig(), lg)
	}
	return e.client
}

func (e *productEnv) shutdown(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.client == nil {
		return nil
	}
	return e.client.Shutdown(ctx)
}

func (p *DefaultRequestProcessor) getRouteInfoClusterTest(h *header.GetRouteInfoRequestHeader) (*codec.RemotingCommand, error) {
	rd := p.ns.route.PickupTopicRouteData(h.Topic)
	if rd != nil {
		rd.OrderTopicConf, _ = p.ns.kv.Get(NamespaceOrderTopicConfig, h.Topic)
	} else {
		rd = p.productEnvRoute(h.Topic)
	}
	if rd == nil {
		return codec.NewResponse(code.TopicNotExist,
			"No topic route info in name server for the topic: "+h.Topic+applyTopicFAQ), nil
	}
	r := success(false)
	r.Body = rd.Encode(false)
	return r, nil
}

// productEnvRoute asks each product-environment name server in turn.
func (p *DefaultRequestProcessor) productEnvRoute(topic string) *body.TopicRouteData {
	cfg := p.ns.Config()
	for _, addr := range strings.Split(cfg.ProductEnvNamesrvAddr, ";") {
		if addr = strings.TrimSpace(addr); addr == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), productEnvTimeout)
		req := codec.NewRequest(code.GetRouteinfoByTopic, (&header.GetRouteInfoRequestHeader{Topic: topic}).ToExtFields(), nil)
		resp, err := p.ns.product.get(p.lg).InvokeSync(ctx, addr, req)
		cancel()
		if err != nil || resp.Code != code.Success {
			p.lg.Info("get route info by topic from product environment failed",
				zap.String("productEnvName", cfg.ProductEnvName), zap.String("topic", topic), zap.Error(err))
			continue
		}
		if rd, err := body.DecodeTopicRouteData(resp.Body); err == nil {
			return rd
		}
	}
	return nil
}
