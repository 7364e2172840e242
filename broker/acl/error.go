package acl

// Error is Java's AclException. Msg is its message; frame is the source
// position 4.9.8 throws it from, which the broker's refusal remark carries
// (RemotingHelper.exceptionSimpleDesc: toString, ", ", top stack frame).
type Error struct {
	Msg   string
	NoMsg bool // the Java message is null (toString is the class name alone)
	frame string
}

// Stack frames of the 4.9.8 throw sites the refusals report, byte for byte.
const (
	frameValidate    = "org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:"
	frameCheckPerm   = "org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:"
	frameParse       = "org.apache.rocketmq.acl.plain.PlainAccessValidator.parse(PlainAccessValidator.java:134)"
	aclExceptionName = "org.apache.rocketmq.acl.common.AclException"
)

func (e *Error) Error() string { return "acl: " + e.Msg }

// Remark is the remark of the SYSTEM_ERROR answer a refused request gets.
func (e *Error) Remark() string {
	s := aclExceptionName
	if !e.NoMsg {
		s += ": " + e.Msg
	}
	if e.frame != "" {
		s += ", " + e.frame
	}
	return s
}

func refusal(frame, msg string) *Error { return &Error{Msg: msg, frame: frame} }
