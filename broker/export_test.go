package broker

// ArrivingWantsProperties reports whether the store is asked to build the
// properties of the next dispatched messages (a held pull's filter reads
// them).
func ArrivingWantsProperties(b *Broker) bool { return arrivingFanout{b}.WantsArrivingProperties() }
