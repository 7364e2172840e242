package header

import "testing"

// TestHeaderUpdateGlobalWhiteAddrsWithoutPath decodes the extFields 4.9.8's
// mqadmin updateGlobalWhiteAddr sends without -f (recorded in the golden
// ACL sessions; Apache answered SUCCESS): there is no aclFileFullPath.
func TestHeaderUpdateGlobalWhiteAddrsWithoutPath(t *testing.T) {
	ext := map[string]string{"AccessKey": "RocketMQAdmin", "Signature": "4Q0amqU+xiD6XSIZs89b77KWdP8=",
		"globalWhiteAddrs": "10.10.103.*,10.10.104.*"}
	var h UpdateGlobalWhiteAddrsConfigRequestHeader
	if err := h.FromExtFields(ext); err != nil {
		t.Fatal(err)
	}
	if h.GlobalWhiteAddrs != "10.10.103.*,10.10.104.*" || h.AclFileFullPath != "" {
		t.Fatalf("decoded %+v", h)
	}
	if err := h.FromExtFields(map[string]string{"aclFileFullPath": "/x"}); err == nil {
		t.Fatal("globalWhiteAddrs is still required")
	}
}
