package body

import "slices"

// ClusterInfo mirrors Java's ClusterInfo (GET_BROKER_CLUSTER_INFO body).
type ClusterInfo struct {
	BrokerAddrTable  map[string]*BrokerData `json:"brokerAddrTable"`
	ClusterAddrTable map[string][]string    `json:"clusterAddrTable"`
}

// Initial capacities of the 4.9.8 RouteInfoManager tables, which fix the
// iteration order fastjson writes them in.
const (
	brokerAddrTableCap  = 128
	clusterAddrTableCap = 32
)

// Encode writes the body as the 4.9.8 name server does (legacy fastjson:
// bare integer broker-id keys, keys in Java HashMap/HashSet order).
func (c *ClusterInfo) Encode() []byte {
	dst := make([]byte, 0, 256)
	dst = append(dst, `{"brokerAddrTable":{`...)
	names := nsKeys(c.BrokerAddrTable)
	SortJavaHashOrder(names, JavaHashMapCapacity(len(names), brokerAddrTableCap))
	for i, n := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendKey(dst, n, false)
		dst = c.BrokerAddrTable[n].appendJSON(dst, false)
	}
	dst = append(dst, `},"clusterAddrTable":{`...)
	clusters := nsKeys(c.ClusterAddrTable)
	SortJavaHashOrder(clusters, JavaHashMapCapacity(len(clusters), clusterAddrTableCap))
	for i, cl := range clusters {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendKey(dst, cl, false)
		set := slices.Clone(c.ClusterAddrTable[cl])
		SortJavaHashOrder(set, JavaHashMapCapacity(len(set), 16))
		dst = AppendStringList(dst, set, false)
	}
	return append(dst, "}}"...)
}

// DecodeClusterInfo reads a ClusterInfo body in either key form.
func DecodeClusterInfo(data []byte) (*ClusterInfo, error) {
	var c ClusterInfo
	if err := decodeFastjson(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

func nsKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
