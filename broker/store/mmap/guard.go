package mmap

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrFault is returned when a store into a mapping faulted: the kernel could
// not back the page (SIGBUS: no block could be allocated on a full disk, or
// the file was truncated underneath). Nothing after the faulting byte was
// written.
var ErrFault = errors.New("mmap: memory fault writing a mapped file")

// Guard runs write, which stores into a file mapping, and turns a memory
// fault during it into an error wrapping ErrFault instead of a crash of the
// whole process. Only faults are caught: any other panic goes on. write
// must not start goroutines that touch the mapping (the fault setting is
// per goroutine).
func Guard(write func()) (err error) {
	old := debug.SetPanicOnFault(true)
	defer recoverFault(old, &err)
	write()
	return nil
}

// recoverFault is Guard's deferred half: it restores the goroutine's fault
// setting and converts a fault panic (a runtime.Error with the faulting
// address) into *err.
func recoverFault(old bool, err *error) {
	debug.SetPanicOnFault(old)
	r := recover()
	if r == nil {
		return
	}
	fault, ok := r.(interface {
		error
		Addr() uintptr
	})
	if !ok {
		panic(r)
	}
	*err = fmt.Errorf("%w at %#x: %w", ErrFault, fault.Addr(), fault)
}
