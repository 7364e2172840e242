// Package props reads java.util.Properties text and binds it onto config
// structs the way Apache RocketMQ's MixAll.properties2Object does.
//
// Syntax accepted by Parse (java.util.Properties.load, 4.9.8 semantics):
//
//	# comment            ! comment
//	key=value            key:value            key value
//	key = value with trailing blanks kept   \
//	      continued on the next line (leading blanks of the next line dropped)
//	escaped\ key\:x = tab\there \u0041
//
// Bind sets every exported struct field tagged `prop:"javaKey"` (optionally
// `prop:"javaKey,important"`, mirroring @ImportantField) on every target that
// declares the key, as properties2Object does for each setter. Invariants,
// matching 4.9.8:
//   - values are never trimmed ("true " is false);
//   - a bool is true only when the value equalsIgnoreCase "true";
//   - an unparsable number keeps the field's current value (a warning is
//     returned instead of Java's silent ignore);
//   - keys no target declares are reported as warnings, never rejected.
//
// Print writes "name=value" lines like MixAll.printObjectProperties.
//
//	m, err := props.Parse(f)
//	warnings := props.Bind(m, nsCfg, nettyCfg)
package props
