package client

import (
	"context"
	"sync"
	"time"

	"github.com/rocketmq-go/rmq/remoting/body"
	"github.com/rocketmq-go/rmq/remoting/code"
	"github.com/rocketmq-go/rmq/remoting/codec"
	"github.com/rocketmq-go/rmq/remoting/header"
)

// GetNextBrokerID asks which id the next broker of the group would get
// (CONTROLLER_GET_NEXT_BROKER_ID; 1 for a group the controller does not know).
func (c *Client) GetNextBrokerID(ctx context.Context, cluster, brokerName string) (int64, error) {
	h := &header.GetNextBrokerIdRequestHeader{ClusterName: cluster, BrokerName: brokerName}
	resp, err := c.toLeader(ctx, func() *codec.RemotingCommand {
		return codec.NewRequest(code.ControllerGetNextBrokerId, h.ToExtFields(), nil)
	})
	if err != nil {
		return 0, err
	}
	var rh header.GetNextBrokerIdResponseHeader
	if err := rh.FromExtFields(resp.ExtFields); err != nil {
		return 0, err
	}
	if rh.NextBrokerID == nil {
		return 0, errMissing("nextBrokerId")
	}
	return *rh.NextBrokerID, nil
}

// ApplyBrokerID claims id for the broker identified by checkCode
// (CONTROLLER_APPLY_BROKER_ID). CONTROLLER_BROKER_ID_INVALID means another
// broker holds it: ask GetNextBrokerID again.
func (c *Client) ApplyBrokerID(ctx context.Context, cluster, brokerName string, id int64, checkCode string) error {
	h := &header.ApplyBrokerIdRequestHeader{ClusterName: cluster, BrokerName: brokerName, AppliedBrokerID: &id, RegisterCheckCode: checkCode}
	_, err := c.toLeader(ctx, func() *codec.RemotingCommand {
		return codec.NewRequest(code.ControllerApplyBrokerId, h.ToExtFields(), nil)
	})
	return err
}

// RegisterResult is the answer to RegisterBroker.
type RegisterResult struct {
	Header       header.RegisterBrokerToControllerResponseHeader
	SyncStateSet body.SyncStateSet
}

// RegisterBroker tells the controller the broker with id is up at addr
// (CONTROLLER_REGISTER_BROKER). The answer names the live master, if any.
func (c *Client) RegisterBroker(ctx context.Context, cluster, brokerName string, id int64, addr string) (*RegisterResult, error) {
	h := &header.RegisterBrokerToControllerRequestHeader{ClusterName: cluster, BrokerName: brokerName, BrokerID: &id,
		BrokerAddress: addr, InvokeTime: time.Now().UnixMilli()}
	resp, err := c.toLeader(ctx, func() *codec.RemotingCommand {
		return codec.NewRequest(code.ControllerRegisterBroker, h.ToExtFields(), nil)
	})
	if err != nil {
		return nil, err
	}
	var r RegisterResult
	if err := r.Header.FromExtFields(resp.ExtFields); err != nil {
		return nil, err
	}
	if err := decodeSyncStateSet(resp.Body, &r.SyncStateSet); err != nil {
		return nil, err
	}
	return &r, nil
}

// ElectResult is the answer to ElectMaster: Code is SUCCESS (a new master)
// or CONTROLLER_MASTER_STILL_EXIST (the current master stays).
type ElectResult struct {
	Code   int32
	Header header.ElectMasterResponseHeader
	Body   body.ElectMasterResponseBody
}

// ElectMaster asks for an election in the group (CONTROLLER_ELECT_MASTER).
// brokerID is the caller's id for a broker-triggered election (5.x elects it
// if the group never had a master), or the id to force with designate=true
// (admin electMaster); -1 lets the policy choose.
func (c *Client) ElectMaster(ctx context.Context, cluster, brokerName string, brokerID int64, designate bool) (*ElectResult, error) {
	h := &header.ElectMasterRequestHeader{ClusterName: cluster, BrokerName: brokerName, BrokerID: &brokerID,
		DesignateElect: designate, InvokeTime: header.Int64(time.Now().UnixMilli())}
	resp, err := c.toLeader(ctx, func() *codec.RemotingCommand {
		return codec.NewRequest(code.ControllerElectMaster, h.ToExtFields(), nil)
	}, code.ControllerMasterStillExist)
	if err != nil {
		return nil, err
	}
	r := &ElectResult{Code: resp.Code}
	if err := r.Header.FromExtFields(resp.ExtFields); err != nil {
		return nil, err
	}
	if len(resp.Body) > 0 {
		b, err := body.DecodeElectMasterResponseBody(resp.Body)
		if err != nil {
			return nil, err
		}
		r.Body = *b
	}
	return r, nil
}

// AlterSyncStateSet proposes a new SyncStateSet as master masterID in
// masterEpoch, replacing the set of epoch setEpoch
// (CONTROLLER_ALTER_SYNC_STATE_SET). It returns the set now in force.
func (c *Client) AlterSyncStateSet(ctx context.Context, brokerName string, masterID int64, masterEpoch int32, set []int64, setEpoch int32) (*body.SyncStateSet, error) {
	h := &header.AlterSyncStateSetRequestHeader{BrokerName: brokerName, MasterBrokerID: &masterID, MasterEpoch: &masterEpoch,
		InvokeTime: time.Now().UnixMilli()}
	b := (&body.SyncStateSet{SyncStateSet: set, SyncStateSetEpoch: setEpoch}).Encode()
	resp, err := c.toLeader(ctx, func() *codec.RemotingCommand {
		return codec.NewRequest(code.ControllerAlterSyncStateSet, h.ToExtFields(), b)
	})
	if err != nil {
		return nil, err
	}
	var s body.SyncStateSet
	if err := decodeSyncStateSet(resp.Body, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// ReplicaInfo is the answer to GetReplicaInfo.
type ReplicaInfo struct {
	Header       header.GetReplicaInfoResponseHeader
	SyncStateSet body.SyncStateSet
}

// GetReplicaInfo reads the group's master and SyncStateSet (CONTROLLER_GET_REPLICA_INFO).
func (c *Client) GetReplicaInfo(ctx context.Context, brokerName string) (*ReplicaInfo, error) {
	h := &header.GetReplicaInfoRequestHeader{BrokerName: brokerName}
	resp, err := c.toLeader(ctx, func() *codec.RemotingCommand {
		return codec.NewRequest(code.ControllerGetReplicaInfo, h.ToExtFields(), nil)
	})
	if err != nil {
		return nil, err
	}
	var r ReplicaInfo
	if err := r.Header.FromExtFields(resp.ExtFields); err != nil {
		return nil, err
	}
	if err := decodeSyncStateSet(resp.Body, &r.SyncStateSet); err != nil {
		return nil, err
	}
	return &r, nil
}

// GetSyncStateData reads the replicas of the named groups
// (CONTROLLER_GET_SYNC_STATE_DATA, mqadmin getSyncStateSet).
func (c *Client) GetSyncStateData(ctx context.Context, brokerNames []string) (*body.BrokerReplicasInfo, error) {
	b := body.EncodeBrokerNameList(brokerNames)
	resp, err := c.toLeader(ctx, func() *codec.RemotingCommand {
		return codec.NewRequest(code.ControllerGetSyncStateData, nil, b)
	})
	if err != nil {
		return nil, err
	}
	if len(resp.Body) == 0 {
		return &body.BrokerReplicasInfo{}, nil
	}
	return body.DecodeBrokerReplicasInfo(resp.Body)
}

// CleanBrokerData removes a group's (or some ids') metadata (CLEAN_BROKER_DATA).
// ids is "1;2" or "" for the whole group.
func (c *Client) CleanBrokerData(ctx context.Context, cluster, brokerName, ids string, cleanLiving bool) error {
	h := &header.CleanControllerBrokerDataRequestHeader{ClusterName: cluster, BrokerName: brokerName,
		BrokerControllerIdsToClean: ids, IsCleanLivingBroker: cleanLiving, InvokeTime: time.Now().UnixMilli()}
	_, err := c.toLeader(ctx, func() *codec.RemotingCommand {
		return codec.NewRequest(code.CleanBrokerData, h.ToExtFields(), nil)
	})
	return err
}

// BrokerHeartbeat sends h oneway to every configured controller at once, as
// 5.x brokers do (each controller keeps its own liveness table), so an
// unreachable controller does not delay the others. It returns when every
// send is done, with the first error.
func (c *Client) BrokerHeartbeat(ctx context.Context, h *header.BrokerHeartbeatRequestHeader) error {
	errs := make([]error, len(c.addrs))
	var wg sync.WaitGroup
	for i, a := range c.addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ictx, cancel := context.WithTimeout(ctx, DefaultTimeout)
			defer cancel()
			errs[i] = c.rc.InvokeOneway(ictx, a, codec.NewRequest(code.BrokerHeartbeat, h.ToExtFields(), nil))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func decodeSyncStateSet(b []byte, dst *body.SyncStateSet) error {
	if len(b) == 0 {
		return nil
	}
	s, err := body.DecodeSyncStateSet(b)
	if err != nil {
		return err
	}
	*dst = *s
	return nil
}

type missingError string

func (e missingError) Error() string { return "controller client: answer lacks " + string(e) }

func errMissing(field string) error { return missingError(field) }
