package proxy

import (
	"context"
	"runtime/debug"

	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A panic in a handler would end the whole process (grpc-go does not
// recover); these interceptors turn one into an INTERNAL error for that
// call and log it, like 5.x's GlobalExceptionInterceptor.

func recoverUnary(lg *zap.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if r := recover(); r != nil {
				lg.Error("panic in grpc handler", zap.String("method", info.FullMethod), zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
				resp, err = nil, status.Error(codes.Internal, "internal server error")
			}
		}()
		return h(ctx, req)
	}
}

func recoverStream(lg *zap.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
		defer func() {
			if r := recover(); r != nil {
				lg.Error("panic in grpc stream handler", zap.String("method", info.FullMethod), zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
				err = status.Error(codes.Internal, "internal server error")
			}
		}()
		return h(srv, ss)
	}
}
