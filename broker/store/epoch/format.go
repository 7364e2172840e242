package epoch

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"strconv"
	"strings"
)

// ErrCorrupt is returned for a file whose header does not match its
// entries (count or CRC) or whose numbers do not parse.
var ErrCorrupt = errors.New("epoch: corrupt epoch file")

// Entry is one epoch of the file (5.x EpochEntry).
type Entry struct {
	Epoch       int32
	StartOffset int64
	// EndOffset is the next entry's StartOffset, math.MaxInt64 for the
	// last entry (or the log end where a caller set it); not stored.
	EndOffset int64
}

// Format renders entries in the CheckpointFile text format.
func Format(entries []Entry) []byte {
	var lines bytes.Buffer
	for _, e := range entries {
		lines.WriteString(strconv.FormatInt(int64(e.Epoch), 10))
		lines.WriteByte('-')
		lines.WriteString(strconv.FormatInt(e.StartOffset, 10))
		lines.WriteByte('\n')
	}
	var out bytes.Buffer
	out.WriteString(strconv.Itoa(len(entries)))
	out.WriteByte('\n')
	out.WriteString(strconv.FormatInt(int64(javaCRC32(lines.Bytes())), 10))
	out.WriteByte('\n')
	out.Write(lines.Bytes())
	return out.Bytes()
}

// javaCRC32 is UtilAll.crc32: the IEEE CRC with the sign bit cleared.
func javaCRC32(b []byte) int32 { return int32(crc32.ChecksumIEEE(b) & 0x7fffffff) }

// Parse reads the CheckpointFile text format as Java's CheckpointFile.read
// does: the count and CRC lines, then one "epoch-startOffset" per line; a
// line that does not split into exactly two parts is skipped (but still
// covered by the CRC); the number of entries must equal the count and the
// CRC, unless 0, must match. Entries come back in file order with
// EndOffset set by Normalize. An empty input is an empty file.
func Parse(data []byte) ([]Entry, error) {
	if len(data) == 0 {
		return nil, nil
	}
	lines := splitLines(string(data))
	if len(lines) < 2 {
		return nil, fmt.Errorf("%w: missing header", ErrCorrupt)
	}
	count, err := strconv.ParseInt(lines[0], 10, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: entry count %q", ErrCorrupt, lines[0])
	}
	sum, err := strconv.ParseInt(lines[1], 10, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: crc %q", ErrCorrupt, lines[1])
	}
	var covered bytes.Buffer
	var out []Entry
	for _, l := range lines[2:] {
		covered.WriteString(l)
		covered.WriteByte('\n')
		e, ok, err := parseLine(l)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	if int64(len(out)) != count {
		return nil, fmt.Errorf("%w: expected %d entries, found %d", ErrCorrupt, count, len(out))
	}
	if sum != 0 && int64(javaCRC32(covered.Bytes())) != sum {
		return nil, fmt.Errorf("%w: crc mismatch", ErrCorrupt)
	}
	return Normalize(out), nil
}

// splitLines is BufferedReader.readLine over the whole input: "\n", "\r"
// and "\r\n" end a line; a last line without terminator counts.
func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return out
}

// parseLine is EpochEntrySerializer.fromLine: String.split("-") (trailing
// empty parts dropped) must give two parts, else the line is no entry;
// two parts that are not numbers are an error (Java throws).
func parseLine(l string) (Entry, bool, error) {
	parts := strings.Split(l, "-")
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) != 2 {
		return Entry{}, false, nil
	}
	ep, err1 := strconv.ParseInt(parts[0], 10, 32)
	off, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return Entry{}, false, fmt.Errorf("%w: entry %q", ErrCorrupt, l)
	}
	return Entry{Epoch: int32(ep), StartOffset: off, EndOffset: math.MaxInt64}, true, nil
}

// Normalize orders entries by epoch as Java's TreeMap does (a later entry
// with the same epoch replaces an earlier one) and sets each EndOffset to
// the next entry's StartOffset, math.MaxInt64 for the last.
func Normalize(in []Entry) []Entry {
	byEpoch := make(map[int32]Entry, len(in))
	for _, e := range in {
		byEpoch[e.Epoch] = e
	}
	out := make([]Entry, 0, len(byEpoch))
	for _, e := range byEpoch {
		out = append(out, e)
	}
	sortByEpoch(out)
	for i := range out {
		out[i].EndOffset = math.MaxInt64
		if i > 0 {
			out[i-1].EndOffset = out[i].StartOffset
		}
	}
	return out
}

func sortByEpoch(es []Entry) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].Epoch < es[j-1].Epoch; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// ConsistentPoint is 5.x findConsistentPoint: the end of the newest epoch
// both histories hold with the same start offset, each side's last entry
// ending at that side's log end (localEnd, masterEnd). It is the offset a
// replica truncates to before it copies from the master; -1 when the
// histories share no epoch.
func ConsistentPoint(local []Entry, localEnd int64, master []Entry, masterEnd int64) int64 {
	local, master = withEnd(local, localEnd), withEnd(master, masterEnd)
	for i := len(local) - 1; i >= 0; i-- {
		l := local[i]
		for _, m := range master {
			if m.Epoch == l.Epoch && m.StartOffset == l.StartOffset {
				return min(l.EndOffset, m.EndOffset)
			}
		}
	}
	return -1
}

// withEnd normalizes a copy of es and closes its last entry at end (5.x
// setLastEpochEntryEndOffset: only when end is not before its start).
func withEnd(es []Entry, end int64) []Entry {
	out := Normalize(es)
	if n := len(out); n > 0 && out[n-1].StartOffset <= end {
		out[n-1].EndOffset = end
	}
	return out
}
