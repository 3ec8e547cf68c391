package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Record is one decoded data record: its descriptor (from the stream that
// held it) and one Value per field of the descriptor, in field order.
type Record struct {
	Desc   *Descriptor
	Values []Value
}

// Value is the value of one field. Which members are used depends on the
// field's type and dimensions:
//
//	scalar int          Int
//	scalar char         Int (the byte, 0..255)
//	scalar float/double Double (a float is widened exactly to float64)
//	array (any type)    Dims: the size of each dimension, len(Dims) = Field.Dims
//	int array           Ints, row-major, len = product of Dims
//	float/double array  Doubles, row-major, len = product of Dims
//	char array          Str: the bytes, row-major, len = product of Dims; a C
//	                    string's closing NUL is part of Str (see Record.String)
//
// The other members are zero. Dims is nil for a scalar and non-nil (possibly
// holding zeros) for an array.
type Value struct {
	Int     int
	Double  float64
	Str     string
	Dims    []int
	Ints    []int
	Doubles []float64
}

// NewRecord returns a record of d with every value zero: scalars 0, arrays
// empty with all sizes 0.
func NewRecord(d *Descriptor) *Record {
	r := &Record{Desc: d, Values: make([]Value, len(d.Fields))}
	for i, f := range d.Fields {
		if f.Dims > 0 {
			r.Values[i].Dims = make([]int, f.Dims)
		}
	}
	return r
}

// Index returns the index of the field called name, or -1.
func (d *Descriptor) Index(name string) int {
	for i := range d.Fields {
		if d.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// Value returns the value of the field called name, or nil.
func (r *Record) Value(name string) *Value {
	if i := r.Desc.Index(name); i >= 0 && i < len(r.Values) {
		return &r.Values[i]
	}
	return nil
}

// nodeIndex is the index of the "node id" field or -1.
func (d *Descriptor) nodeIndex() int {
	if len(d.Fields) > 0 && d.Fields[0].Name == "node id" && d.Fields[0].Type == Int && d.Fields[0].Dims == 0 {
		return 0
	}
	i := d.Index("node id")
	if i >= 0 && (d.Fields[i].Type != Int || d.Fields[i].Dims != 0) {
		return -1
	}
	return i
}

// clockIndex is the index of the time stamp: the scalar double "clock
// microseconds", else the first scalar double whose name contains "clock"
// (e.g. "fault clock microseconds"), else -1.
func (d *Descriptor) clockIndex() int {
	if len(d.Fields) > 1 && d.Fields[1].Name == "clock microseconds" && d.Fields[1].Type == Double && d.Fields[1].Dims == 0 {
		return 1
	}
	first := -1
	for i, f := range d.Fields {
		if f.Dims != 0 || (f.Type != Double && f.Type != Float) {
			continue
		}
		if f.Name == "clock microseconds" {
			return i
		}
		if first < 0 && strings.Contains(f.Name, "clock") {
			first = i
		}
	}
	return first
}

// Node returns the "node id" field, or -1 if the record has none.
func (r *Record) Node() int {
	i := r.Desc.nodeIndex()
	if i < 0 || i >= len(r.Values) {
		return -1
	}
	return r.Values[i].Int
}

// Clock returns the record's time stamp in microseconds (see clockIndex: the
// "clock microseconds" field, or for the page fault records the "fault clock
// microseconds"), or 0 if the record has none.
func (r *Record) Clock() float64 {
	i := r.Desc.clockIndex()
	if i < 0 || i >= len(r.Values) {
		return 0
	}
	return r.Values[i].Double
}

// Int returns the int (or char) scalar field called name, 0 if there is none.
func (r *Record) Int(name string) int {
	if v := r.Value(name); v != nil {
		return v.Int
	}
	return 0
}

// Double returns the float or double scalar field called name, 0 if there is
// none.
func (r *Record) Double(name string) float64 {
	if v := r.Value(name); v != nil {
		return v.Double
	}
	return 0
}

// IntArray returns the sizes and the row-major elements of the int array
// field called name (nil, nil if there is none).
func (r *Record) IntArray(name string) (dims []int, vals []int) {
	if v := r.Value(name); v != nil {
		return v.Dims, v.Ints
	}
	return nil, nil
}

// DoubleArray returns the sizes and the row-major elements of the float or
// double array field called name (nil, nil if there is none).
func (r *Record) DoubleArray(name string) (dims []int, vals []float64) {
	if v := r.Value(name); v != nil {
		return v.Dims, v.Doubles
	}
	return nil, nil
}

// String returns the char array field called name as a Go string: its bytes
// up to the first NUL. It returns "" if there is no such field.
func (r *Record) String(name string) string {
	v := r.Value(name)
	if v == nil {
		return ""
	}
	if i := strings.IndexByte(v.Str, 0); i >= 0 {
		return v.Str[:i]
	}
	return v.Str
}

// elemSize is the binary size of one element of t.
func elemSize(t FieldType) int {
	switch t {
	case Char:
		return 1
	case Int, Float:
		return 4
	case Double:
		return 8
	}
	return 0
}

// appendRecord appends r as a binary data packet, checking it against its
// descriptor.
func appendRecord(dst []byte, r *Record) ([]byte, error) {
	d := r.Desc
	if d == nil {
		return dst, errors.New("trace: record without descriptor")
	}
	if len(r.Values) != len(d.Fields) {
		return dst, fmt.Errorf("trace: record %q has %d values for %d fields", d.Name, len(r.Values), len(d.Fields))
	}
	start := len(dst)
	le := binary.LittleEndian
	dst = le.AppendUint32(dst, 0)
	dst = le.AppendUint32(dst, PacketData)
	dst = le.AppendUint32(dst, uint32(d.Tag))
	bad := func(f *Field, format string, args ...any) error {
		return fmt.Errorf("trace: record %q field %q: %s", d.Name, f.Name, fmt.Sprintf(format, args...))
	}
	for i := range d.Fields {
		f := &d.Fields[i]
		v := &r.Values[i]
		if f.Dims == 0 {
			switch f.Type {
			case Int:
				if v.Int < math.MinInt32 || v.Int > math.MaxInt32 {
					return dst[:start], bad(f, "int %d out of 32-bit range", v.Int)
				}
				dst = le.AppendUint32(dst, uint32(int32(v.Int)))
			case Char:
				if v.Int < 0 || v.Int > 255 {
					return dst[:start], bad(f, "char %d out of byte range", v.Int)
				}
				dst = append(dst, byte(v.Int))
			case Float:
				dst = le.AppendUint32(dst, math.Float32bits(float32(v.Double)))
			case Double:
				dst = le.AppendUint64(dst, math.Float64bits(v.Double))
			default:
				return dst[:start], bad(f, "bad field type %d", f.Type)
			}
			continue
		}
		if len(v.Dims) != f.Dims {
			return dst[:start], bad(f, "%d sizes for a %d-dimensional array", len(v.Dims), f.Dims)
		}
		n := 1
		for _, s := range v.Dims {
			if s < 0 || s > math.MaxInt32 {
				return dst[:start], bad(f, "array size %d out of range", s)
			}
			if s != 0 && n > MaxElems/s {
				n = MaxElems + 1
			} else {
				n *= s
			}
			dst = le.AppendUint32(dst, uint32(s))
		}
		if n > MaxElems {
			return dst[:start], bad(f, "array of more than %d elements", MaxElems)
		}
		var have int
		switch f.Type {
		case Int:
			have = len(v.Ints)
		case Float, Double:
			have = len(v.Doubles)
		case Char:
			have = len(v.Str)
		default:
			return dst[:start], bad(f, "bad field type %d", f.Type)
		}
		if have != n {
			return dst[:start], bad(f, "%d elements for sizes %v", have, v.Dims)
		}
		switch f.Type {
		case Int:
			for _, x := range v.Ints {
				if x < math.MinInt32 || x > math.MaxInt32 {
					return dst[:start], bad(f, "int %d out of 32-bit range", x)
				}
				dst = le.AppendUint32(dst, uint32(int32(x)))
			}
		case Float:
			for _, x := range v.Doubles {
				dst = le.AppendUint32(dst, math.Float32bits(float32(x)))
			}
		case Double:
			for _, x := range v.Doubles {
				dst = le.AppendUint64(dst, math.Float64bits(x))
			}
		case Char:
			dst = append(dst, v.Str...)
		}
	}
	if len(dst)-start-4 > MaxPacket {
		return dst[:start], fmt.Errorf("trace: record %q: packet larger than %d bytes", d.Name, MaxPacket)
	}
	le.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst, nil
}

// decErr is a decoding error at an offset relative to the decoded slice.
type decErr struct {
	off int
	msg string
}

// decodeData walks the fields of a binary data packet p (the bytes after the
// tag) against d. If rec is non-nil it receives the values; if txt is
// non-nil the ASCII form of the record's values (the part between "{ " and
// " }") is appended to it. With both nil it only checks p.
func decodeData(d *Descriptor, p []byte, rec *Record, txt *[]byte, sl *slab) *decErr {
	le := binary.LittleEndian
	off := 0
	need := func(n int, f *Field, what string) *decErr {
		if len(p)-off < n {
			return &decErr{off, fmt.Sprintf("field %q: %s needs %d bytes, packet has %d left", f.Name, what, n, len(p)-off)}
		}
		return nil
	}
	for i := range d.Fields {
		f := &d.Fields[i]
		var v *Value
		if rec != nil {
			v = &rec.Values[i]
		}
		if txt != nil && i > 0 {
			*txt = append(*txt, ", "...)
		}
		if f.Dims == 0 {
			sz := elemSize(f.Type)
			if e := need(sz, f, f.Type.String()); e != nil {
				return e
			}
			switch f.Type {
			case Int:
				x := int(int32(le.Uint32(p[off:])))
				if v != nil {
					v.Int = x
				}
				if txt != nil {
					*txt = strconv.AppendInt(*txt, int64(x), 10)
				}
			case Char:
				x := p[off]
				if v != nil {
					v.Int = int(x)
				}
				if txt != nil {
					*txt = appendQuoted(*txt, string(p[off:off+1]))
				}
			case Float:
				x := math.Float32frombits(le.Uint32(p[off:]))
				if v != nil {
					v.Double = float64(x)
				}
				if txt != nil {
					*txt = strconv.AppendFloat(*txt, float64(x), 'g', -1, 32)
				}
			case Double:
				x := math.Float64frombits(le.Uint64(p[off:]))
				if v != nil {
					v.Double = x
				}
				if txt != nil {
					*txt = strconv.AppendFloat(*txt, x, 'g', -1, 64)
				}
			}
			off += sz
			continue
		}
		// Array: sizes, then the elements row-major.
		if e := need(4*f.Dims, f, "array sizes"); e != nil {
			return e
		}
		n := 1
		var dims []int
		if v != nil {
			dims = sl.ints(f.Dims)
			v.Dims = dims
		}
		for k := 0; k < f.Dims; k++ {
			s := int32(le.Uint32(p[off:]))
			if s < 0 {
				return &decErr{off, fmt.Sprintf("field %q: negative array size %d", f.Name, s)}
			}
			if dims != nil {
				dims[k] = int(s)
			}
			if txt != nil {
				*txt = append(*txt, '[')
				*txt = strconv.AppendInt(*txt, int64(s), 10)
				*txt = append(*txt, ']')
			}
			// Saturate: the size check below rejects it anyway.
			if s != 0 && n > (len(p)+1)/int(s) {
				n = len(p) + 1
			} else {
				n *= int(s)
			}
			off += 4
		}
		sz := elemSize(f.Type)
		if n > MaxElems || n*sz > len(p)-off {
			return &decErr{off, fmt.Sprintf("field %q: array of %v elements of %d bytes exceeds the %d bytes left in the packet", f.Name, dimsString(p[off-4*f.Dims:off]), sz, len(p)-off)}
		}
		if txt != nil {
			*txt = append(*txt, " {"...)
		}
		switch f.Type {
		case Int:
			var vals []int
			if v != nil {
				vals = sl.ints(n)
				v.Ints = vals
			}
			for k := 0; k < n; k++ {
				x := int(int32(le.Uint32(p[off:])))
				if vals != nil {
					vals[k] = x
				}
				if txt != nil {
					if k > 0 {
						*txt = append(*txt, ',')
					}
					*txt = append(*txt, ' ')
					*txt = strconv.AppendInt(*txt, int64(x), 10)
				}
				off += 4
			}
		case Float, Double:
			var vals []float64
			if v != nil {
				vals = make([]float64, n)
				v.Doubles = vals
			}
			for k := 0; k < n; k++ {
				var x float64
				bits := 64
				if f.Type == Float {
					x = float64(math.Float32frombits(le.Uint32(p[off:])))
					bits = 32
				} else {
					x = math.Float64frombits(le.Uint64(p[off:]))
				}
				if vals != nil {
					vals[k] = x
				}
				if txt != nil {
					if k > 0 {
						*txt = append(*txt, ',')
					}
					*txt = append(*txt, ' ')
					*txt = strconv.AppendFloat(*txt, x, 'g', -1, bits)
				}
				off += sz
			}
		case Char:
			s := p[off : off+n]
			if v != nil {
				v.Str = string(s)
			}
			if txt != nil {
				if len(s) > 0 && s[len(s)-1] == 0 {
					s = s[:len(s)-1]
				}
				*txt = append(*txt, ' ')
				*txt = appendQuoted(*txt, string(s))
			}
			off += n
		}
		if txt != nil {
			*txt = append(*txt, " }"...)
		}
	}
	if off != len(p) {
		return &decErr{off, fmt.Sprintf("%d bytes after the last field", len(p)-off)}
	}
	return nil
}

// dimsString formats raw int32 sizes as "2 x 3".
func dimsString(b []byte) string {
	var parts []string
	for len(b) >= 4 {
		parts = append(parts, strconv.Itoa(int(int32(binary.LittleEndian.Uint32(b)))))
		b = b[4:]
	}
	return strings.Join(parts, " x ")
}

// slab hands out small slices carved from larger allocations, so that a
// decoded record costs few allocations. Slices are capped (s[:n:n]); memory
// is never reused. A nil *slab allocates each slice on its own.
type slab struct {
	is   []int
	vals []Value
	recs []Record
}

const slabInts, slabVals, slabRecs = 1024, 256, 64

func (s *slab) ints(n int) []int {
	if s == nil || n > slabInts/8 {
		return make([]int, n)
	}
	if n > len(s.is) {
		s.is = make([]int, slabInts)
	}
	v := s.is[:n:n]
	s.is = s.is[n:]
	return v
}

// record returns a record of d with zero values.
func (s *slab) record(d *Descriptor) *Record {
	n := len(d.Fields)
	if len(s.recs) == 0 {
		s.recs = make([]Record, slabRecs)
	}
	r := &s.recs[0]
	s.recs = s.recs[1:]
	r.Desc = d
	if n > slabVals/8 {
		r.Values = make([]Value, n)
		return r
	}
	if n > len(s.vals) {
		s.vals = make([]Value, slabVals)
	}
	r.Values = s.vals[:n:n]
	s.vals = s.vals[n:]
	return r
}
