// Package layout holds no code: its test keeps the dependency direction of
// STYLE.md §2 honest by asking `go list` what each package imports.
package layout
