package proxy

import (
	"errors"
	"fmt"

	"github.com/rocketmq-go/rmq/internal/admin"
	apiv2 "github.com/rocketmq-go/rmq/proxy/apis/v2"
	"github.com/rocketmq-go/rmq/remoting"
	"github.com/rocketmq-go/rmq/remoting/code"
)

// Error is a failure with the protocol code the client sees in Status
// (5.x's GrpcProxyException).
type Error struct {
	Code    apiv2.Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("proxy: %s: %s", e.Code, e.Message) }

func errorf(c apiv2.Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// okStatus is Status{OK, "OK"}, as 5.x writes it.
func okStatus() *apiv2.Status { return newStatus(apiv2.Code_OK, "") }

func newStatus(c apiv2.Code, msg string) *apiv2.Status {
	if msg == "" {
		msg = c.String()
	}
	return &apiv2.Status{Code: c, Message: msg}
}

// remotingCodes maps broker response codes as 5.x's ResponseBuilder does;
// anything else is INTERNAL_SERVER_ERROR.
var remotingCodes = map[int32]apiv2.Code{
	code.Success:                   apiv2.Code_OK,
	code.SystemBusy:                apiv2.Code_TOO_MANY_REQUESTS,
	code.RequestCodeNotSupported:   apiv2.Code_NOT_IMPLEMENTED,
	code.SubscriptionGroupNotExist: apiv2.Code_CONSUMER_GROUP_NOT_FOUND,
}

// CodeOfRemoting is the protocol code of a broker response code.
func CodeOfRemoting(c int32) apiv2.Code {
	if pc, ok := remotingCodes[c]; ok {
		return pc
	}
	return apiv2.Code_INTERNAL_SERVER_ERROR
}

// StatusOf turns an error into the Status 5.x's ResponseBuilder.buildStatus
// would answer.
func StatusOf(err error) *apiv2.Status {
	if err == nil {
		return okStatus()
	}
	var pe *Error
	if errors.As(err, &pe) {
		return newStatus(pe.Code, pe.Message)
	}
	if errors.Is(err, admin.ErrNotFound) {
		return newStatus(apiv2.Code_TOPIC_NOT_FOUND, err.Error())
	}
	var we *remoting.Error
	if errors.As(err, &we) {
		if we.Code == code.TopicNotExist {
			return newStatus(apiv2.Code_TOPIC_NOT_FOUND, we.Remark)
		}
		return newStatus(CodeOfRemoting(we.Code), we.Remark)
	}
	if errors.Is(err, remoting.ErrTimeout) {
		return newStatus(apiv2.Code_PROXY_TIMEOUT, err.Error())
	}
	return newStatus(apiv2.Code_INTERNAL_SERVER_ERROR, err.Error())
}
