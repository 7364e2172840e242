package broker

import "context"

// RefreshAssignmentRoutes runs one pass of the QUERY_ASSIGNMENT route
// refresh (every 30 s otherwise) for b.
func RefreshAssignmentRoutes(b *Broker) {
	if v, ok := assignmentProcessors.Load(b); ok {
		v.(*assignmentProcessor).refreshRoutes(context.Background())
	}
}
