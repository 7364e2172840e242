package acl

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// The ACL files are read into yaml.Node trees so that a rewrite keeps the
// keys, their order and the accounts Java would keep (SnakeYAML loads into
// LinkedHashMaps), and written back in SnakeYAML's dumpAsMap block style.

// readDoc returns the top-level mapping of path; nil when the file is
// missing, empty or holds null (Java: no data).
func readDoc(path string) (*yaml.Node, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{Msg: err.Error()}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if isNull(root) {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Msg: fmt.Sprintf("%s: top level is not a map", path)}
	}
	return root, nil
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// mapSet replaces key's value in place or appends the pair.
func mapSet(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, strNode(key), v)
}

func newMap() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func strNode(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(b)}
}

func intNode(v int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(v)}
}

func strList(items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, s := range items {
		n.Content = append(n.Content, strNode(s))
	}
	return n
}

// scalar is a node's text; ok is false for a missing or null node.
func scalar(n *yaml.Node) (string, bool) {
	if isNull(n) || n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}

// boolOf reads a boolean as SnakeYAML (YAML 1.1) and fastjson accept it.
func boolOf(n *yaml.Node) bool {
	s, _ := scalar(n)
	switch strings.ToLower(s) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

// stringList reads a list of strings; a missing or null node is nil.
func stringList(n *yaml.Node, key string) ([]string, error) {
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, &Error{Msg: fmt.Sprintf("%s is not a list", key)}
	}
	out := make([]string, 0, len(n.Content))
	for _, it := range n.Content {
		s, _ := scalar(it)
		out = append(out, s)
	}
	return out, nil
}

// dump writes m as SnakeYAML's dumpAsMap does: block style, two-space
// indent, sequence items at their key's indent.
func dump(m *yaml.Node) []byte {
	var b bytes.Buffer
	dumpMap(&b, m, 0, false)
	return b.Bytes()
}

func dumpMap(b *bytes.Buffer, m *yaml.Node, indent int, inlineFirst bool) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if i > 0 || !inlineFirst {
			b.WriteString(strings.Repeat(" ", indent))
		}
		b.WriteString(scalarText(m.Content[i]))
		b.WriteByte(':')
		dumpValue(b, m.Content[i+1], indent)
	}
}

func dumpValue(b *bytes.Buffer, v *yaml.Node, indent int) {
	switch {
	case v.Kind == yaml.SequenceNode && len(v.Content) == 0:
		b.WriteString(" []\n")
	case v.Kind == yaml.MappingNode && len(v.Content) == 0:
		b.WriteString(" {}\n")
	case v.Kind == yaml.SequenceNode:
		b.WriteByte('\n')
		dumpSeq(b, v, indent)
	case v.Kind == yaml.MappingNode:
		b.WriteByte('\n')
		dumpMap(b, v, indent+2, false)
	default:
		b.WriteString(" " + scalarText(v) + "\n")
	}
}

func dumpSeq(b *bytes.Buffer, s *yaml.Node, indent int) {
	for _, it := range s.Content {
		b.WriteString(strings.Repeat(" ", indent) + "-")
		switch {
		case it.Kind == yaml.MappingNode && len(it.Content) > 0:
			b.WriteByte(' ')
			dumpMap(b, it, indent+2, true)
		case it.Kind == yaml.SequenceNode && len(it.Content) > 0:
			b.WriteByte('\n')
			dumpSeq(b, it, indent+2)
		default:
			dumpValue(b, it, indent)
		}
	}
}

// scalarText is the scalar as SnakeYAML writes it: null, booleans and
// numbers bare, strings plain unless they would read back as something
// else, then single-quoted.
func scalarText(n *yaml.Node) string {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.ShortTag() {
	case "!!null":
		return "null"
	case "!!bool", "!!int", "!!float":
		return n.Value
	}
	out, err := yaml.Marshal(n.Value)
	if err != nil {
		return "'" + strings.ReplaceAll(n.Value, "'", "''") + "'"
	}
	s := strings.TrimSuffix(string(out), "\n")
	if strings.HasPrefix(s, "\"") && !strings.Contains(s, "\\") {
		// Quoted only to stay a string ("", "true", "123"): SnakeYAML
		// single-quotes those.
		return "'" + strings.ReplaceAll(n.Value, "'", "''") + "'"
	}
	return s // plain, single-quoted, or double-quoted with escapes
}
