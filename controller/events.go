package controller

import (
	"encoding/json"
	"errors"
	"fmt"
)

// EventType numbers the replicated events as 5.x's EventType does.
type EventType int16

// Event types (5.x EventType ids).
const (
	EventAlterSyncStateSet   EventType = 1 // ALTER_SYNC_STATE_SET_EVENT
	EventApplyBrokerID       EventType = 2 // APPLY_BROKER_ID_EVENT
	EventElectMaster         EventType = 3 // ELECT_MASTER_EVENT
	EventCleanBrokerData     EventType = 5 // CLEAN_BROKER_DATA_EVENT
	EventUpdateBrokerAddress EventType = 6 // UPDATE_BROKER_ADDRESS
)

func (t EventType) String() string {
	switch t {
	case EventAlterSyncStateSet:
		return "AlterSyncStateSetEvent"
	case EventApplyBrokerID:
		return "ApplyBrokerIdEvent"
	case EventElectMaster:
		return "ElectMasterEvent"
	case EventCleanBrokerData:
		return "CleanBrokerDataEvent"
	case EventUpdateBrokerAddress:
		return "UpdateBrokerAddressEvent"
	}
	return fmt.Sprintf("EventType(%d)", int16(t))
}

// Event is one change to the replicated state. Only the fields its Type uses
// are set:
//
//	ApplyBrokerId:        ClusterName, BrokerName, BrokerAddress, BrokerID, RegisterCheckCode
//	UpdateBrokerAddress:  ClusterName, BrokerName, BrokerAddress, BrokerID
//	AlterSyncStateSet:    BrokerName, NewSyncStateSet
//	ElectMaster:          BrokerName, NewMasterElected, BrokerID (the new master when elected)
//	CleanBrokerData:      BrokerName, BrokerIDsToClean (empty = the whole group)
type Event struct {
	Type              EventType `json:"type"`
	ClusterName       string    `json:"clusterName,omitempty"`
	BrokerName        string    `json:"brokerName"`
	BrokerAddress     string    `json:"brokerAddress,omitempty"`
	BrokerID          int64     `json:"brokerId,omitempty"`
	RegisterCheckCode string    `json:"registerCheckCode,omitempty"`
	NewSyncStateSet   []int64   `json:"newSyncStateSet,omitempty"`
	NewMasterElected  bool      `json:"newMasterElected,omitempty"`
	BrokerIDsToClean  []int64   `json:"brokerIdsToClean,omitempty"`
}

// logFormatV1 is the first byte of every Raft log entry we write: a JSON
// array of events follows. The byte leaves room for another encoding.
const logFormatV1 = 1

// ErrBadLogEntry reports a Raft log entry this version cannot read.
var ErrBadLogEntry = errors.New("controller: bad log entry")

// EncodeEvents is the Raft log entry for a batch of events, applied together.
func EncodeEvents(evs []Event) ([]byte, error) {
	b, err := json.Marshal(evs)
	if err != nil {
		return nil, err
	}
	return append([]byte{logFormatV1}, b...), nil
}

// DecodeEvents reads a log entry written by EncodeEvents.
func DecodeEvents(data []byte) ([]Event, error) {
	if len(data) == 0 || data[0] != logFormatV1 {
		return nil, ErrBadLogEntry
	}
	var evs []Event
	if err := json.Unmarshal(data[1:], &evs); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadLogEntry, err)
	}
	return evs, nil
}
