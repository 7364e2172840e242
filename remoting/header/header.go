package header

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// CommandCustomHeader is implemented by every typed header: it converts
// between the struct and a command's extFields map.
type CommandCustomHeader interface {
	// ToExtFields returns a fresh map holding the header's non-null fields,
	// each formatted as Java's toString would.
	ToExtFields() map[string]string
	// FromExtFields resets the header and fills it from ext. Unknown keys
	// are ignored.
	FromExtFields(ext map[string]string) error
}

// ErrFieldNull matches (errors.Is) every MissingFieldError.
var ErrFieldNull = errors.New("header: required field is null")

// ErrBadValue matches (errors.Is) every BadValueError.
var ErrBadValue = errors.New("header: field value cannot be parsed")

// MissingFieldError reports a required (@CFNotNull) field absent from
// extFields. Its text is exactly Java's RemotingCommandException message.
type MissingFieldError struct{ Field string }

func (e *MissingFieldError) Error() string { return "the custom field <" + e.Field + "> is null" }

// Is makes errors.Is(err, ErrFieldNull) true.
func (e *MissingFieldError) Is(target error) bool { return target == ErrFieldNull }

// BadValueError reports a numeric field whose text Java's
// Integer.parseInt / Long.parseLong would reject (NumberFormatException).
type BadValueError struct {
	Field string
	Value string
	Err   error
}

func (e *BadValueError) Error() string {
	return fmt.Sprintf("the custom field <%s> has bad value %q: %v", e.Field, e.Value, e.Err)
}

// Is makes errors.Is(err, ErrBadValue) true.
func (e *BadValueError) Is(target error) bool { return target == ErrBadValue }

// Unwrap returns the strconv error.
func (e *BadValueError) Unwrap() error { return e.Err }

// fieldPlan describes one tagged struct field.
type fieldPlan struct {
	key      string
	index    int
	required bool
	ptr      bool         // optional boxed Java field (*int32, *int64, *bool, *string)
	kind     reflect.Kind // kind of the value (the pointee for ptr)
}

var plans sync.Map // reflect.Type (struct) -> []fieldPlan

// planOf returns the cached field plan of struct type t. A bad tag or an
// unsupported field type (no header has a Double) is a programming error
// and panics at first use.
func planOf(t reflect.Type) []fieldPlan {
	if p, ok := plans.Load(t); ok {
		return p.([]fieldPlan)
	}
	var out []fieldPlan
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, ok := f.Tag.Lookup("ext")
		if !ok {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fp := fieldPlan{key: name, index: i, required: opts == "required", kind: f.Type.Kind()}
		if fp.kind == reflect.Pointer {
			fp.ptr = true
			fp.kind = f.Type.Elem().Kind()
		}
		switch fp.kind {
		case reflect.String, reflect.Int32, reflect.Int64, reflect.Bool:
		default:
			panic("header: unsupported field type " + t.Name() + "." + f.Name)
		}
		out = append(out, fp)
	}
	plans.Store(t, out)
	return out
}

// encode mirrors RemotingCommand.makeCustomHeaderToNet: every non-null field
// becomes key -> toString(value). Plain (non-pointer) numbers and booleans
// are Java primitives or defaulted boxes and are always written; a plain
// string is written when required or non-empty; pointers when non-nil.
func encode(h any) map[string]string {
	v := reflect.ValueOf(h).Elem()
	plan := planOf(v.Type())
	m := make(map[string]string, len(plan))
	for i := range plan {
		fp := &plan[i]
		fv := v.Field(fp.index)
		if fp.ptr {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		} else if fp.kind == reflect.String && !fp.required && fv.Len() == 0 {
			continue
		}
		m[fp.key] = formatValue(fv)
	}
	return m
}

func formatValue(fv reflect.Value) string {
	switch fv.Kind() {
	case reflect.String:
		return fv.String()
	case reflect.Int32, reflect.Int64:
		return strconv.FormatInt(fv.Int(), 10)
	default:
		return strconv.FormatBool(fv.Bool())
	}
}

// decode mirrors RemotingCommand.decodeCommandCustomHeader: the header is
// reset, then each tagged field is read from ext by its exact key. On error
// the header is left zero.
func decode(ext map[string]string, h any) error {
	v := reflect.ValueOf(h).Elem()
	v.SetZero()
	plan := planOf(v.Type())
	for i := range plan {
		fp := &plan[i]
		s, ok := ext[fp.key]
		if !ok {
			if fp.required {
				v.SetZero()
				return &MissingFieldError{Field: fp.key}
			}
			continue
		}
		fv := v.Field(fp.index)
		if fp.ptr {
			nv := reflect.New(fv.Type().Elem())
			fv.Set(nv)
			fv = nv.Elem()
		}
		if err := parseValue(fv, fp.kind, s); err != nil {
			v.SetZero()
			return &BadValueError{Field: fp.key, Value: s, Err: err}
		}
	}
	return nil
}

func parseValue(fv reflect.Value, kind reflect.Kind, s string) error {
	switch kind {
	case reflect.String:
		fv.SetString(s)
	case reflect.Int32:
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return err
		}
		fv.SetInt(n)
	case reflect.Int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return err
		}
		fv.SetInt(n)
	default:
		// Boolean.parseBoolean: true only for "true" in any case, never an error.
		fv.SetBool(strings.EqualFold(s, "true"))
	}
	return nil
}

// Int32 returns a pointer to v, for optional Integer fields.
func Int32(v int32) *int32 { return &v }

// Int64 returns a pointer to v, for optional Long fields.
func Int64(v int64) *int64 { return &v }

// Bool returns a pointer to v, for optional Boolean fields.
func Bool(v bool) *bool { return &v }

// String returns a pointer to v, for optional String fields that must
// distinguish "" from null.
func String(v string) *string { return &v }
