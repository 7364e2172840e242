package proxy

import (
	"context"
	"sync"
	"time"

	"github.com/rocketmq-go/rmq/remoting/body"
)

// routeTTL is how long a topic route from the name server is reused (5.x's
// proxy caches routes too, refreshing them every 20 s); errors are not
// cached, so a topic created a moment ago is found on the next call.
const routeTTL = 10 * time.Second

// routeCache keeps recent name-server routes so that a send costs no name
// server round trip.
type routeCache struct {
	be  Backend
	ttl time.Duration

	mu sync.Mutex // guards m; never held across the lookup
	m  map[string]cachedRoute
}

type cachedRoute struct {
	rd *body.TopicRouteData
	at time.Time
}

func newRouteCache(be Backend, ttl time.Duration) *routeCache {
	return &routeCache{be: be, ttl: ttl, m: map[string]cachedRoute{}}
}

// get returns topic's route, from the cache when fresh. The result is
// shared: do not modify it.
func (c *routeCache) get(ctx context.Context, topic string) (*body.TopicRouteData, error) {
	now := time.Now()
	c.mu.Lock()
	r, ok := c.m[topic]
	c.mu.Unlock()
	if ok && now.Sub(r.at) < c.ttl {
		return r.rd, nil
	}
	rd, err := c.be.TopicRoute(ctx, topic)
	if err != nil {
		c.mu.Lock()
		delete(c.m, topic)
		c.mu.Unlock()
		return nil, err
	}
	c.mu.Lock()
	c.m[topic] = cachedRoute{rd: rd, at: now}
	c.mu.Unlock()
	return rd, nil
}
