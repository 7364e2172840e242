// Package console is the name server's read-only web console (our
// extension; Apache ships rocketmq-dashboard as a separate Java app). It
// serves embedded static pages (static/index.html, app.js, app.css: no
// framework, nothing fetched from elsewhere) and a JSON API computed with
// internal/admin against the name server itself and the brokers it knows,
// over the same remoting codes the dashboard uses:
//
//	GET /api/cluster               brokers: cluster, name, id/role, address, version, put/get TPS, disk ratio
//	GET /api/topics                topic names, flagged system or not
//	GET /api/topic?name=T          route, min/max offset per queue, message count
//	GET /api/groups                subscription groups with members, total lag, consume TPS
//	GET /api/group?name=G          per-queue broker/consumer offsets and lag, members, subscriptions
//	GET /api/message?topic=T&id=I  one message by offsetMsgId or client id (UNIQ_KEY)
//	GET /api/message?topic=T&key=K messages by key
//	GET /api/series                the live charts' samples (put/get TPS, lag per group)
//
// Invariants:
//   - read-only: every method but GET and HEAD is answered 405;
//   - data is never markup: the JSON escapes <, > and &, the script sets
//     only textContent, and the Content-Security-Policy forbids inline
//     script and every origin but the console's own;
//   - nothing runs on a gnet loop: net/http serves on its own goroutines,
//     each API request's admin calls are bounded by Config.Timeout;
//   - one sampler goroutine (internal/service) adds a point every
//     SampleInterval to a ring of SeriesLen points (mutex is a leaf).
//
// Usage (the name server does this when consoleListenAddr is set):
//
//	c, err := console.New(console.Config{ListenAddr: "127.0.0.1:8080",
//		Namesrv: func() []string { return []string{"127.0.0.1:9876"} }}, lg)
//	err = c.Start()
//	defer c.Shutdown(ctx)
package console
