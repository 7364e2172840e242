package remoting

import "runtime"

// NettyServerConfig mirrors Java's org.apache.rocketmq.remoting.netty.NettyServerConfig (4.9.8).
// Fields that only tune Netty internals are kept so that properties files bind
// without warnings; the gnet server uses the ones documented below.
type NettyServerConfig struct {
	ListenPort                         int  `prop:"listenPort"`
	ServerWorkerThreads                int  `prop:"serverWorkerThreads"`
	ServerCallbackExecutorThreads      int  `prop:"serverCallbackExecutorThreads"`
	ServerSelectorThreads              int  `prop:"serverSelectorThreads"` // gnet event loops
	ServerOnewaySemaphoreValue         int  `prop:"serverOnewaySemaphoreValue"`
	ServerAsyncSemaphoreValue          int  `prop:"serverAsyncSemaphoreValue"`
	ServerChannelMaxIdleTimeSeconds    int  `prop:"serverChannelMaxIdleTimeSeconds"` // ≤0 disables the idle check
	ServerSocketSndBufSize             int  `prop:"serverSocketSndBufSize"`          // 0: OS default
	ServerSocketRcvBufSize             int  `prop:"serverSocketRcvBufSize"`          // 0: OS default
	WriteBufferHighWaterMark           int  `prop:"writeBufferHighWaterMark"`
	WriteBufferLowWaterMark            int  `prop:"writeBufferLowWaterMark"`
	ServerSocketBacklog                int  `prop:"serverSocketBacklog"`
	ServerPooledByteBufAllocatorEnable bool `prop:"serverPooledByteBufAllocatorEnable"`
	UseEpollNativeSelector             bool `prop:"useEpollNativeSelector"`

	// ListenAddr is the address to bind, e.g. "127.0.0.1:0"; empty means ":" + ListenPort.
	ListenAddr string
	// MaxFrameLength bounds one frame (length prefix included); ≤0 means codec.DefaultMaxFrameLength.
	MaxFrameLength int
	// TLS is the tls.* configuration (Java's TlsSystemConfig); nil serves
	// plain connections only, as mode disabled. The binaries set Java's
	// default, permissive with a self-signed certificate.
	TLS *TLSConfig
}

// NewNettyServerConfig returns Java's NettyServerConfig defaults.
func NewNettyServerConfig() *NettyServerConfig {
	return &NettyServerConfig{
		ListenPort:                         8888,
		ServerWorkerThreads:                8,
		ServerCallbackExecutorThreads:      0,
		ServerSelectorThreads:              3,
		ServerOnewaySemaphoreValue:         256,
		ServerAsyncSemaphoreValue:          64,
		ServerChannelMaxIdleTimeSeconds:    120,
		ServerSocketBacklog:                1024,
		ServerPooledByteBufAllocatorEnable: true,
	}
}

// EventLoops is the number of gnet event loops a server with this
// configuration runs: serverSelectorThreads, at least one.
func (c *NettyServerConfig) EventLoops() int {
	if c.ServerSelectorThreads <= 0 {
		return 1
	}
	return c.ServerSelectorThreads
}

// NettyClientConfig mirrors Java's org.apache.rocketmq.remoting.netty.NettyClientConfig (4.9.8).
type NettyClientConfig struct {
	ClientWorkerThreads                int   `prop:"clientWorkerThreads"`
	ClientCallbackExecutorThreads      int   `prop:"clientCallbackExecutorThreads"`
	ClientOnewaySemaphoreValue         int   `prop:"clientOnewaySemaphoreValue"` // concurrent oneway calls
	ClientAsyncSemaphoreValue          int   `prop:"clientAsyncSemaphoreValue"`  // concurrent async calls
	ConnectTimeoutMillis               int   `prop:"connectTimeoutMillis"`
	ChannelNotActiveInterval           int64 `prop:"channelNotActiveInterval"`
	ClientChannelMaxIdleTimeSeconds    int   `prop:"clientChannelMaxIdleTimeSeconds"` // ≤0 disables the idle check
	ClientSocketSndBufSize             int   `prop:"clientSocketSndBufSize"`
	ClientSocketRcvBufSize             int   `prop:"clientSocketRcvBufSize"`
	ClientPooledByteBufAllocatorEnable bool  `prop:"clientPooledByteBufAllocatorEnable"`
	ClientCloseSocketIfTimeout         bool  `prop:"clientCloseSocketIfTimeout"`
	UseTLS                             bool  `prop:"useTLS"`
	WriteBufferHighWaterMark           int   `prop:"writeBufferHighWaterMark"`
	WriteBufferLowWaterMark            int   `prop:"writeBufferLowWaterMark"`

	// MaxFrameLength bounds one received frame; ≤0 means codec.DefaultMaxFrameLength.
	MaxFrameLength int
	// TLS holds the tls.client.* settings used when UseTLS is set; nil
	// means test mode (any server certificate is accepted).
	TLS *TLSConfig
}

// NewNettyClientConfig returns Java's NettyClientConfig defaults (NettySystemConfig system-property defaults).
func NewNettyClientConfig() *NettyClientConfig {
	return &NettyClientConfig{
		ClientWorkerThreads:             4,
		ClientCallbackExecutorThreads:   runtime.NumCPU(),
		ClientOnewaySemaphoreValue:      65535,
		ClientAsyncSemaphoreValue:       65535,
		ConnectTimeoutMillis:            3000,
		ChannelNotActiveInterval:        60000,
		ClientChannelMaxIdleTimeSeconds: 120,
		ClientCloseSocketIfTimeout:      true,
	}
}
