package remoting

import (
	"errors"
	"strconv"
)

// Sentinel errors of the transport, mirroring Java's Remoting*Exception family.
var (
	ErrChannelClosed  = errors.New("remoting: channel closed")        // RemotingConnectException after close
	ErrConnect        = errors.New("remoting: connect failed")        // RemotingConnectException
	ErrSendRequest    = errors.New("remoting: send request failed")   // RemotingSendRequestException
	ErrTimeout        = errors.New("remoting: wait response timeout") // RemotingTimeoutException
	ErrTooMuchRequest = errors.New("remoting: too many requests")     // RemotingTooMuchRequestException
	ErrShutdown       = errors.New("remoting: shut down")
)

// Error is a wire error a processor returns: the transport answers with Code and Remark.
type Error struct {
	Code   int32
	Remark string
}

// NewError returns an *Error answering code with remark.
func NewError(code int32, remark string) *Error { return &Error{Code: code, Remark: remark} }

func (e *Error) Error() string {
	return "remoting: code " + strconv.Itoa(int(e.Code)) + ": " + e.Remark
}
