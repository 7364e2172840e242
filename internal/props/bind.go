package props

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// field is one tagged struct field of a bind or print target.
type field struct {
	key       string
	important bool
	v         reflect.Value
}

// fieldsOf lists the tagged fields of a pointer to struct, in declaration order.
func fieldsOf(target any) []field {
	rv := reflect.ValueOf(target)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil
	}
	return collect(rv.Elem(), nil)
}

func collect(sv reflect.Value, out []field) []field {
	st := sv.Type()
	for i := 0; i < st.NumField(); i++ {
		sf := st.Field(i)
		if !sf.IsExported() {
			continue
		}
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			out = collect(sv.Field(i), out)
			continue
		}
		tag, ok := sf.Tag.Lookup("prop")
		if !ok || tag == "" || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		out = append(out, field{key: name, important: opts == "important", v: sv.Field(i)})
	}
	return out
}

// Bind sets the fields tagged with each key of m on every target (pointers to
// structs) that declares it, like MixAll.properties2Object applied to each
// target in turn. It returns one warning per bad value and per key that no
// target declares, sorted for stable output. Fields keep their value on error.
func Bind(m map[string]string, targets ...any) []string {
	var warnings []string
	known := make(map[string]bool)
	for _, t := range targets {
		for _, f := range fieldsOf(t) {
			known[f.key] = true
			val, ok := m[f.key]
			if !ok {
				continue
			}
			if err := setValue(f.v, val); err != nil {
				warnings = append(warnings, fmt.Sprintf("bad value for %s: %q: %v", f.key, val, err))
			}
		}
	}
	for k := range m {
		if !known[k] {
			warnings = append(warnings, "unknown key "+k)
		}
	}
	sort.Strings(warnings)
	return warnings
}

// setValue converts val as Java's properties2Object would for the field type.
func setValue(v reflect.Value, val string) error {
	switch v.Kind() {
	case reflect.String:
		v.SetString(val)
	case reflect.Bool:
		v.SetBool(strings.EqualFold(val, "true"))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(val, 10, v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(val, 10, v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetUint(n)
	case reflect.Float32, reflect.Float64:
		// Double.parseDouble trims blanks, unlike the integer parsers.
		n, err := strconv.ParseFloat(strings.TrimSpace(val), v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetFloat(n)
	default:
		return fmt.Errorf("unsupported field kind %s", v.Kind())
	}
	return nil
}

// Keys returns the keys the targets declare, in declaration order.
func Keys(targets ...any) []string {
	var keys []string
	for _, t := range targets {
		for _, f := range fieldsOf(t) {
			keys = append(keys, f.key)
		}
	}
	return keys
}

// Get returns the value of key on the first target declaring it, formatted as
// Java's String.valueOf would, and whether any target declares it.
func Get(key string, targets ...any) (string, bool) {
	for _, t := range targets {
		for _, f := range fieldsOf(t) {
			if f.key == key {
				return format(f.v), true
			}
		}
	}
	return "", false
}

func format(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return formatJavaDouble(v.Float())
	default:
		return fmt.Sprint(v.Interface())
	}
}

// formatJavaDouble approximates Double.toString for the plain values configs use.
func formatJavaDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}
