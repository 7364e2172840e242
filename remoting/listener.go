package remoting

import "net"

// UseListener makes Start serve connections accepted from ln instead of
// binding ListenAddr/ListenPort; Addr then reports ln.Addr(). The server
// owns ln from then on and closes it on Shutdown. Call it before Start.
//
// The controller uses it to share its Raft port with the remoting API: it
// accepts on the real socket and passes remoting connections on through a
// listener of its own. Connections must be *net.TCPConn (or another
// syscall.Conn) so that they can be handed to the event loops.
func (s *Server) UseListener(ln net.Listener) { s.given = ln }
