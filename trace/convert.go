package trace

import (
	"bufio"
	"io"
	"strconv"
)

// Convert reads the SDDF stream src (ASCII or binary) and writes it to dst
// in format f: the leading attributes, then every descriptor, attribute
// packet and data record in stream order. Converting a stream to the other
// format and back gives the same bytes for any stream written by Writer
// (NaN payloads aside: ASCII prints every NaN as "NaN"). Records before
// damaged input are written and flushed before the error is returned.
func Convert(dst io.Writer, f Format, src io.Reader) error {
	r, err := NewReader(src)
	if err != nil {
		return err
	}
	w, err := newWriter(dst, f, r.Attrs(), nil)
	if err != nil {
		return err
	}
	for {
		p, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			w.Close()
			return err
		}
		switch p.kind {
		case PacketAttributes:
			err = w.writeAttrs(p.attrs)
		case PacketDescriptor:
			err = w.WriteDescriptor(p.desc)
		case PacketData:
			err = w.WriteRecord(p.rec)
		}
		if err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// Dump reads the SDDF stream src and writes one line per data record to w:
//
//	node 2  t=12.500us  trace-region-start  subprogram number=1 directive number=0 trace region type=1
//
// The node id and time stamp (see Record.Node and Record.Clock) come first;
// the other fields follow as name=value: arrays as [2][3]{1,2,3,4,5,6}, char
// arrays as quoted strings up to their first NUL, doubles in the shortest
// form that reads back exactly.
func Dump(w io.Writer, src io.Reader) error {
	r, err := NewReader(src)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	var line []byte
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			bw.Flush()
			return err
		}
		line = appendDumpLine(line[:0], rec)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// DumpLine returns the Dump line of one record, without the newline.
func DumpLine(rec *Record) string {
	b := appendDumpLine(nil, rec)
	return string(b[:len(b)-1])
}

func appendDumpLine(b []byte, rec *Record) []byte {
	d := rec.Desc
	ni, ci := d.nodeIndex(), d.clockIndex()
	if len(rec.Values) != len(d.Fields) { // not from a Reader: show what is there
		ni, ci = -1, -1
	}
	b = append(b, "node "...)
	if ni >= 0 {
		b = strconv.AppendInt(b, int64(rec.Values[ni].Int), 10)
	} else {
		b = append(b, '?')
	}
	b = append(b, "  t="...)
	if ci >= 0 {
		b = strconv.AppendFloat(b, rec.Values[ci].Double, 'f', 3, 64)
		b = append(b, "us"...)
	} else {
		b = append(b, '?')
	}
	b = append(b, "  "...)
	b = append(b, d.Name...)
	sep := "  "
	for i := range min(len(d.Fields), len(rec.Values)) {
		if i == ni || i == ci {
			continue
		}
		f := &d.Fields[i]
		v := &rec.Values[i]
		b = append(b, sep...)
		sep = " "
		b = append(b, f.Name...)
		b = append(b, '=')
		b = appendDumpValue(b, f, v)
	}
	return append(b, '\n')
}

func appendDumpValue(b []byte, f *Field, v *Value) []byte {
	bits := 64
	if f.Type == Float {
		bits = 32
	}
	if f.Dims == 0 {
		switch f.Type {
		case Int:
			return strconv.AppendInt(b, int64(v.Int), 10)
		case Char:
			return appendQuoted(b, string([]byte{byte(v.Int)}))
		}
		return strconv.AppendFloat(b, v.Double, 'g', -1, bits)
	}
	for _, s := range v.Dims {
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(s), 10)
		b = append(b, ']')
	}
	if f.Type == Char {
		s := v.Str
		for i := 0; i < len(s); i++ {
			if s[i] == 0 {
				s = s[:i]
				break
			}
		}
		return appendQuoted(b, s)
	}
	b = append(b, '{')
	switch f.Type {
	case Int:
		for k, x := range v.Ints {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(x), 10)
		}
	default:
		for k, x := range v.Doubles {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, x, 'g', -1, bits)
		}
	}
	return append(b, '}')
}
