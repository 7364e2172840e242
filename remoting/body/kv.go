package body

// KVTable mirrors Java's KVTable ({"table":{…}}), the body of
// GET_KVLIST_BY_NAMESPACE and of the REGISTER_BROKER answer.
type KVTable struct {
	Table map[string]string `json:"table"`
}

// Encode writes the table with keys in Java HashMap order (the namespace's
// HashMap is copied into a new default HashMap by the name server).
func (k *KVTable) Encode() []byte {
	keys := nsKeys(k.Table)
	SortJavaHashOrder(keys, JavaHashMapCapacity(len(keys), 16))
	dst := make([]byte, 0, 32+32*len(keys))
	dst = append(dst, `{"table":{`...)
	for i, key := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendKey(dst, key, false)
		dst = AppendString(dst, k.Table[key], false)
	}
	return append(dst, "}}"...)
}

// DecodeKVTable reads a KVTable body.
func DecodeKVTable(data []byte) (*KVTable, error) {
	var k KVTable
	if err := decodeFastjson(data, &k); err != nil {
		return nil, err
	}
	return &k, nil
}
