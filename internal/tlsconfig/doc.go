// Package tlsconfig resolves the tls.* settings (remoting.TLSConfig) the
// way a 4.9.8 JVM ends up with them, for the binaries in cmd/.
//
// Java reads TlsSystemConfig from system properties (-Dtls.server.mode=…)
// once, then TlsHelper re-reads every key except tls.server.mode and
// tls.enable from the tls.config.file properties file (default
// /etc/rocketmq/tls.properties; a missing or unreadable file is skipped).
// Our binaries take, in increasing precedence:
//
//	defaults (TlsSystemConfig's)
//	< tls.* keys in the -c properties file (Java ignores them there)
//	< -Dtls.…=value options on the command line (Java's system properties)
//	< the tls.config.file (all keys but tls.server.mode, tls.enable, tls.config.file)
//
// Usage:
//
//	args, defs := props.SplitDefines(os.Args[1:])
//	tc := remoting.NewTLSConfig()
//	props.LoadFile(confFile, stderr, append(targets, tc)...)
//	tlsconfig.Apply(tc, defs, stderr)
package tlsconfig
