package remoting

import (
	"slices"
	"testing"
	"time"

	"github.com/apache/rocketmq-client-go/v2/admin"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/rlog"

	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
)

// TestRemotingOfficialGoClient: the official Go client's remoting layer
// (through its admin API) talks to the gnet server: its JSON request frame is
// decoded, and our response frame and body are decoded by it.
func TestRemotingOfficialGoClient(t *testing.T) {
	rlog.SetLogLevel("error")
	got := make(chan *codec.RemotingCommand, 1)
	s := startServer(t, nil, func(s *Server) {
		s.RegisterProcessor(code.GetAllTopicListFromNameserver, ProcessorFunc(func(_ *Context, req *codec.RemotingCommand) (*codec.RemotingCommand, error) {
			got <- req
			resp := codec.NewResponse(code.Success, "")
			resp.Body = []byte(`{"topicList":["TopicA","TopicB"]}`)
			return resp, nil
		}), NewPool("namesrv", 1, 16))
	})
	adm, err := admin.NewAdmin(admin.WithResolver(primitive.NewPassthroughResolver([]string{s.Addr().String()})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = adm.Close() })
	list, err := adm.FetchAllTopicList(ctxT(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(list.TopicList, []string{"TopicA", "TopicB"}) {
		t.Fatalf("topic list %v", list.TopicList)
	}
	req := <-got
	if req.Language != code.Go || req.SerializeType != codec.JSON || req.IsResponse() {
		t.Fatalf("request language %v serialize %v flag %d", req.Language, req.SerializeType, req.Flag)
	}
}
