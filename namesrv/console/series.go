package console

import (
	"context"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"
)

// maxSampledGroups bounds the groups whose lag one sample asks for (the
// first ones by name); the /api/groups page itself asks for all.
const maxSampledGroups = 100

// Point is one sample of the live charts.
type Point struct {
	T        int64            `json:"t"` // ms since the epoch
	PutTps   float64          `json:"putTps"`
	GetTps   float64          `json:"getTps"`
	Lag      int64            `json:"lag"`
	GroupLag map[string]int64 `json:"groupLag"`
}

// ring keeps the last n points.
type ring struct {
	mu   sync.Mutex // leaf
	buf  []Point
	next int
	full bool
}

func newRing(n int) *ring { return &ring{buf: make([]Point, n)} }

func (r *ring) add(p Point) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf[r.next] = p
	r.next = (r.next + 1) % len(r.buf)
	r.full = r.full || r.next == 0
}

// points returns the kept points, oldest first.
func (r *ring) points() []Point {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]Point{}, r.buf[:r.next]...)
	}
	return append(append([]Point{}, r.buf[r.next:]...), r.buf[:r.next]...)
}

// takeSample adds one point: put/get TPS summed over every broker, and the
// lag of each group that is not the brokers' own. A sample that cannot reach
// the name server is skipped (a gap in the chart).
func (c *Console) takeSample(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, max(c.cfg.SampleInterval, c.cfg.Timeout))
	defer cancel()
	cl, err := c.cluster(ctx)
	if err != nil {
		c.lg.Debug("console sample failed", zap.Error(err))
		return
	}
	p := Point{T: time.Now().UnixMilli(), GroupLag: map[string]int64{}}
	for _, b := range cl.Brokers {
		p.PutTps += b.PutTps
		p.GetTps += b.GetTps
	}
	groups, err := c.groups(ctx, false, maxSampledGroups)
	if err == nil {
		for _, g := range groups {
			if g.System || g.Error != "" || len(p.GroupLag) == maxSampledGroups {
				continue
			}
			p.GroupLag[g.Name] = g.TotalLag
			p.Lag += g.TotalLag
		}
	}
	c.series.add(p)
}

// Series is /api/series.
type Series struct {
	IntervalMs int64   `json:"intervalMs"`
	Points     []Point `json:"points"`
}

func (c *Console) seriesAPI(context.Context, *http.Request) (any, error) {
	return &Series{IntervalMs: c.cfg.SampleInterval.Milliseconds(), Points: c.series.points()}, nil
}
