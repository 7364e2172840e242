package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// echoServer is the machine's request-rate ceiling for the lean load
// generator: it reads length-prefixed frames and writes each back
// unchanged, one goroutine per connection, flushing when no further input
// is buffered (so pipelined requests share a write).
type echoServer struct {
	ln    net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func startEchoServer(addr string) (*echoServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &echoServer{ln: ln, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

func (s *echoServer) addr() string { return s.ln.Addr().String() }

func (s *echoServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			_ = echoFrames(c, c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			_ = c.Close()
		}()
	}
}

// close stops accepting, closes every connection and waits for them.
func (s *echoServer) close() {
	_ = s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// echoFrames copies whole frames from r to w until r ends.
func echoFrames(r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 256<<10)
	bw := bufio.NewWriterSize(w, 256<<10)
	var buf []byte
	for {
		head, err := br.Peek(4)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return bw.Flush()
			}
			return err
		}
		n := int(binary.BigEndian.Uint32(head))
		if n < 4 || n > 64<<20 {
			return fmt.Errorf("echo: frame length %d", n)
		}
		if cap(buf) < n+4 {
			buf = make([]byte, n+4)
		}
		if _, err := io.ReadFull(br, buf[:n+4]); err != nil {
			return err
		}
		if _, err := bw.Write(buf[:n+4]); err != nil {
			return err
		}
		if br.Buffered() < 4 {
			if err := bw.Flush(); err != nil {
				return err
			}
		}
	}
}
