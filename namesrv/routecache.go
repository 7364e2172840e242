package namesrv

// A cache of encoded GET_ROUTEINFO_BY_TOPIC bodies: routes are read far more
// often than brokers change them (every client polls every 30 s per topic).

type routeCacheKey struct {
	topic    string
	standard bool
}

// cachedRoute is immutable once stored.
type cachedRoute struct {
	gen  uint64 // route generation the body was built from (or older)
	body []byte
}

// bumpLocked invalidates cached route bodies; call with r.mu held for writing
// after any change that can alter a route.
func (r *RouteInfoManager) bumpLocked() {
	r.gen.Add(1)
	r.cache.Clear()
}

// TopicRouteBody returns the encoded route of topic (see TopicRouteData.Encode),
// or nil when the topic has no route. The bytes are shared: do not modify.
func (r *RouteInfoManager) TopicRouteBody(topic string, standard bool) []byte {
	key := routeCacheKey{topic, standard}
	g := r.gen.Load() // read before building: a later change makes this entry stale
	if v, ok := r.cache.Load(key); ok {
		if c := v.(*cachedRoute); c.gen == g {
			return c.body
		}
	}
	rd := r.PickupTopicRouteData(topic)
	if rd == nil {
		return nil
	}
	b := rd.Encode(standard)
	r.cache.Store(key, &cachedRoute{gen: g, body: b})
	return b
}
