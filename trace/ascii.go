package trace

import (
	"fmt"
	"io"
	"strconv"
)

// ASCII token kinds: a punctuation token's kind is the byte itself.
const (
	tEOF    = 0
	tWord   = 'w' // a run of [A-Za-z0-9_.+-]: numbers, type names, NaN, Inf
	tString = 's' // a quoted string, unescaped into token.text
	tAttr   = 'A' // "//"
	tOpen   = 'O' // "/*"
	tClose  = 'C' // "*/"
)

// maxWord bounds the length of a word token (numbers, type names).
const maxWord = 512

type token struct {
	kind  byte
	off   int64  // stream offset of the token's first byte
	text  []byte // word or unescaped string; valid until the next lex
	atEOF bool   // the token ended because the input did (it may be cut short)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == '+' || c == '-'
}

// Where the ASCII parser is, for error messages.
const (
	inNothing = iota
	inRecord
	inDescriptor
	inAttrs
)

type asciiWhere struct {
	kind int
	name string
	tag  Tag
}

func (r *Reader) whereString(w asciiWhere) string {
	switch w.kind {
	case inRecord:
		return r.recWhere(w.name)
	case inDescriptor:
		if w.name == "" {
			return fmt.Sprintf("descriptor #%d", w.tag)
		}
		return fmt.Sprintf("descriptor #%d %q", w.tag, w.name)
	case inAttrs:
		return "attribute block"
	}
	return ""
}

func (r *Reader) unlex(t token) {
	r.tk, r.peeked = t, true
}

// lex returns the next token. Lexical errors are returned with where.
func (r *Reader) lex() (token, error) {
	if r.peeked {
		r.peeked = false
		return r.tk, nil
	}
	for {
		if !r.fill(1) {
			if r.rerr != nil {
				return token{}, r.truncated("", "")
			}
			return token{kind: tEOF, off: r.eofOffset(), atEOF: true}, nil
		}
		c := r.buf[r.pos]
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		r.pos++
	}
	off := r.offset()
	c := r.buf[r.pos]
	switch c {
	case '{', '}', '[', ']', ';', ',', ':', '#':
		r.pos++
		return token{kind: c, off: off}, nil
	case '/':
		if !r.fill(2) {
			return token{}, r.truncated("", "after '/'")
		}
		switch r.buf[r.pos+1] {
		case '/':
			r.pos += 2
			return token{kind: tAttr, off: off}, nil
		case '*':
			r.pos += 2
			return token{kind: tOpen, off: off}, nil
		}
		return token{}, r.corrupt(off, "", "stray '/'")
	case '*':
		if !r.fill(2) {
			r.pos++
			return token{kind: '*', off: off, atEOF: true}, nil
		}
		if r.buf[r.pos+1] == '/' {
			r.pos += 2
			return token{kind: tClose, off: off}, nil
		}
		r.pos++
		return token{kind: '*', off: off}, nil
	case '"':
		return r.lexString(off)
	}
	if !isWordByte(c) {
		return token{}, r.corrupt(off, "", "unexpected byte %q", c)
	}
	i := 0
	atEOF := false
	for {
		if !r.fill(i + 1) {
			atEOF = true
			break
		}
		if !isWordByte(r.buf[r.pos+i]) {
			break
		}
		if i++; i > maxWord {
			return token{}, r.corrupt(off, "", "word longer than %d bytes", maxWord)
		}
	}
	t := token{kind: tWord, off: off, text: r.buf[r.pos : r.pos+i], atEOF: atEOF}
	r.pos += i
	return t, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// lexString reads a quoted string whose opening quote is at off.
func (r *Reader) lexString(off int64) (token, error) {
	r.pos++
	s := r.scratch[:0]
	for {
		if !r.fill(1) {
			r.scratch = s
			return token{}, r.truncated("", "in a string")
		}
		c := r.buf[r.pos]
		r.pos++
		if c == '"' {
			break
		}
		if c == '\\' {
			eoff := r.offset() - 1
			if !r.fill(1) {
				r.scratch = s
				return token{}, r.truncated("", "in a string")
			}
			e := r.buf[r.pos]
			r.pos++
			switch e {
			case '\\', '"', '/':
				c = e
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'x':
				if !r.fill(2) {
					r.scratch = s
					return token{}, r.truncated("", "in a string")
				}
				h, ok1 := unhex(r.buf[r.pos])
				l, ok2 := unhex(r.buf[r.pos+1])
				if !ok1 || !ok2 {
					r.scratch = s
					return token{}, r.corrupt(eoff, "", "bad \\x escape in a string")
				}
				r.pos += 2
				c = h<<4 | l
			default:
				r.scratch = s
				return token{}, r.corrupt(eoff, "", "unknown escape \\%c in a string", e)
			}
		}
		if len(s) >= MaxString {
			r.scratch = s[:0]
			return token{}, r.corrupt(off, "", "string longer than %d bytes", MaxString)
		}
		s = append(s, c)
	}
	r.scratch = s
	return token{kind: tString, off: off, text: s}, nil
}

// describe names a token for an error message.
func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tWord:
		return fmt.Sprintf("%.40q", t.text)
	case tString:
		return fmt.Sprintf("string %.40q", t.text)
	case tAttr:
		return `"//"`
	case tOpen:
		return `"/*"`
	case tClose:
		return `"*/"`
	}
	return fmt.Sprintf("%q", string(t.kind))
}

// bad reports token t as wrong: want says what was expected. A token cut by
// the end of the input is reported as truncation at the end.
func (r *Reader) bad(w asciiWhere, t token, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if t.atEOF {
		if r.rerr != nil {
			return &CorruptError{Name: r.name, Offset: r.eofOffset(), Where: r.whereString(w), Msg: "read error: " + r.rerr.Error() + ": " + msg}
		}
		return &CorruptError{Name: r.name, Offset: r.eofOffset(), Where: r.whereString(w), Msg: "unexpected end of input: " + msg}
	}
	return &CorruptError{Name: r.name, Offset: t.off, Where: r.whereString(w), Msg: msg}
}

// tok lexes a token, filling in where on a lexical error.
func (r *Reader) tok(w asciiWhere) (token, error) {
	t, err := r.lex()
	if err != nil {
		if ce, ok := err.(*CorruptError); ok && ce.Where == "" {
			ce.Where = r.whereString(w)
		}
	}
	return t, err
}

// expect lexes a token of the given kind; what names it for the message.
func (r *Reader) expect(w asciiWhere, kind byte, what string) (token, error) {
	t, err := r.tok(w)
	if err != nil {
		return t, err
	}
	if t.kind != kind {
		return t, r.bad(w, t, "want %s, found %s", what, describe(t))
	}
	return t, nil
}

// want lexes a token and reports whether it is of the given kind (false
// also on a lexical error, returned in err).
func (r *Reader) want(w asciiWhere, kind byte) (token, bool, error) {
	t, err := r.tok(w)
	return t, err == nil && t.kind == kind, err
}

// orBad returns err if set, else the error for the unexpected token t.
func (r *Reader) orBad(err error, w asciiWhere, t token, format string, args ...any) error {
	if err != nil {
		return err
	}
	return r.bad(w, t, format, args...)
}

// semis reads the ";;" that ends a packet.
func (r *Reader) semis(w asciiWhere) error {
	if _, err := r.expect(w, ';', `";;"`); err != nil {
		return err
	}
	_, err := r.expect(w, ';', `";;"`)
	return err
}

// nextASCII reads one ASCII packet.
func (r *Reader) nextASCII() (packet, error) {
	t, err := r.lex()
	if err != nil {
		return packet{}, err
	}
	switch t.kind {
	case tEOF:
		return packet{}, io.EOF
	case tOpen:
		attrs, err := r.asciiAttrBlock()
		return packet{kind: PacketAttributes, attrs: attrs}, err
	case '#':
		d, err := r.asciiDescriptor(t.off)
		return packet{kind: PacketDescriptor, desc: d}, err
	case tString:
		rec, err := r.asciiData(t)
		return packet{kind: PacketData, rec: rec}, err
	}
	return packet{}, r.bad(asciiWhere{}, t, "want a descriptor, a data record or an attribute block, found %s", describe(t))
}

// asciiAttrBlock reads an attribute block after its "/*".
func (r *Reader) asciiAttrBlock() ([]Attr, error) {
	w := asciiWhere{kind: inAttrs}
	var attrs []Attr
	for {
		t, err := r.tok(w)
		if err != nil {
			return nil, err
		}
		if t.kind == '*' && !t.atEOF {
			continue
		}
		if t.kind == tClose {
			break
		}
		if t.kind != tString {
			return nil, r.bad(w, t, `want an attribute "key" "value" or "*/", found %s`, describe(t))
		}
		if len(attrs) >= MaxAttrs {
			return nil, r.bad(w, t, "more than %d attributes", MaxAttrs)
		}
		k := string(t.text)
		v, err := r.expect(w, tString, "an attribute value")
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, Attr{k, string(v.text)})
	}
	t, err := r.tok(w)
	if err != nil {
		return nil, err
	}
	if t.kind == ';' {
		if _, err := r.expect(w, ';', `";;"`); err != nil {
			return nil, err
		}
	} else {
		r.unlex(t)
	}
	attrs = withoutRunIndex(attrs)
	r.attrs = append(r.attrs, attrs...)
	return attrs, nil
}

// parseInt parses a decimal integer that must fit 32 bits.
func parseInt(b []byte) (int, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	if i == len(b) {
		return 0, false
	}
	var v int64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
		if v > 1<<31 {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 {
		return 0, false
	}
	return int(v), true
}

var typeNames = map[string]FieldType{"char": Char, "int": Int, "float": Float, "double": Double}

// asciiDescriptor reads a descriptor after its "#".
func (r *Reader) asciiDescriptor(off int64) (*Descriptor, error) {
	w := asciiWhere{kind: inDescriptor}
	t, err := r.expect(w, tWord, "a tag number")
	if err != nil {
		return nil, err
	}
	tag, ok := parseInt(t.text)
	if !ok {
		return nil, r.bad(w, t, "bad tag %s", describe(t))
	}
	d := &Descriptor{Tag: Tag(tag)}
	w.tag = d.Tag
	if _, err := r.expect(w, ':', `":"`); err != nil {
		return nil, err
	}
	// Attributes, then the record name.
	for {
		t, err := r.tok(w)
		if err != nil {
			return nil, err
		}
		if t.kind == tString {
			d.Name = string(t.text)
			w.name = d.Name
			break
		}
		if t.kind != tAttr {
			return nil, r.bad(w, t, `want "//" or the record name, found %s`, describe(t))
		}
		if err := r.asciiAttrLine(w, func(k, v string) {
			if k == "event" {
				d.Event = v
			}
		}); err != nil {
			return nil, err
		}
	}
	if _, err := r.expect(w, '{', `"{"`); err != nil {
		return nil, err
	}
	for {
		t, err := r.tok(w)
		if err != nil {
			return nil, err
		}
		if t.kind == '}' {
			break
		}
		if t.kind == tAttr { // a field attribute: accepted, not kept
			if err := r.asciiAttrLine(w, nil); err != nil {
				return nil, err
			}
			continue
		}
		if t.kind != tWord {
			return nil, r.bad(w, t, `want a field type or "}", found %s`, describe(t))
		}
		typ, ok := typeNames[string(t.text)]
		if !ok {
			return nil, r.bad(w, t, "unknown field type %s", describe(t))
		}
		if len(d.Fields) >= MaxFields {
			return nil, r.bad(w, t, "more than %d fields", MaxFields)
		}
		nt, err := r.expect(w, tString, "a field name")
		if err != nil {
			return nil, err
		}
		f := Field{Type: typ, Name: string(nt.text)}
		for {
			t, err := r.tok(w)
			if err != nil {
				return nil, err
			}
			if t.kind == ';' {
				break
			}
			if t.kind != '[' {
				return nil, r.bad(w, t, `want "[]" or ";" after field %q, found %s`, f.Name, describe(t))
			}
			if f.Dims >= MaxDims {
				return nil, r.bad(w, t, "field %q has more than %d dimensions", f.Name, MaxDims)
			}
			if _, err := r.expect(w, ']', `"]"`); err != nil {
				return nil, err
			}
			f.Dims++
		}
		d.Fields = append(d.Fields, f)
	}
	if err := r.semis(w); err != nil {
		return nil, err
	}
	return r.addDesc(d, off)
}

// asciiAttrLine reads the "key" "value" after "//".
func (r *Reader) asciiAttrLine(w asciiWhere, set func(k, v string)) error {
	k, err := r.expect(w, tString, "an attribute key")
	if err != nil {
		return err
	}
	key := string(k.text)
	v, err := r.expect(w, tString, "an attribute value")
	if err != nil {
		return err
	}
	if set != nil {
		set(key, string(v.text))
	}
	return nil
}

// asciiData reads a data record whose name token is nt.
func (r *Reader) asciiData(nt token) (*Record, error) {
	d := r.byName[string(nt.text)]
	if d == nil {
		return nil, r.bad(asciiWhere{kind: inRecord, name: string(nt.text)}, nt, "no descriptor for record %q", nt.text)
	}
	w := asciiWhere{kind: inRecord, name: d.Name}
	if _, err := r.expect(w, '{', `"{"`); err != nil {
		return nil, err
	}
	rec := r.slab.record(d)
	for i := range d.Fields {
		f := &d.Fields[i]
		if i > 0 {
			if t, ok, err := r.want(w, ','); !ok {
				return nil, r.orBad(err, w, t, `want "," before field %q, found %s`, f.Name, describe(t))
			}
		}
		if err := r.asciiValue(w, f, &rec.Values[i]); err != nil {
			return nil, err
		}
	}
	if _, err := r.expect(w, '}', `"}" after the last field`); err != nil {
		return nil, err
	}
	if err := r.semis(w); err != nil {
		return nil, err
	}
	return rec, nil
}

// scalar parses the number t of type typ (Int: first result, else second).
func (r *Reader) scalar(w asciiWhere, f *Field, t token, typ FieldType) (int, float64, error) {
	if t.kind != tWord {
		return 0, 0, r.bad(w, t, "field %q: want a %s, found %s", f.Name, typ, describe(t))
	}
	switch typ {
	case Int:
		x, ok := parseInt(t.text)
		if !ok {
			return 0, 0, r.bad(w, t, "field %q: bad int %s", f.Name, describe(t))
		}
		return x, 0, nil
	case Float, Double:
		bits := 64
		if typ == Float {
			bits = 32
		}
		x, err := strconv.ParseFloat(string(t.text), bits)
		if err != nil {
			return 0, 0, r.bad(w, t, "field %q: bad %s %s", f.Name, typ, describe(t))
		}
		return 0, x, nil
	}
	return 0, 0, r.bad(w, t, "field %q: bad type", f.Name)
}

// asciiValue parses the value of field f into v.
func (r *Reader) asciiValue(w asciiWhere, f *Field, v *Value) error {
	if f.Dims == 0 {
		t, err := r.tok(w)
		if err != nil {
			return err
		}
		if f.Type == Char {
			if t.kind != tString || len(t.text) != 1 {
				return r.bad(w, t, "field %q: want a one-byte string, found %s", f.Name, describe(t))
			}
			v.Int = int(t.text[0])
			return nil
		}
		v.Int, v.Double, err = r.scalar(w, f, t, f.Type)
		return err
	}
	v.Dims = r.slab.ints(f.Dims)
	n := 1
	for k := range v.Dims {
		if t, ok, err := r.want(w, '['); !ok {
			return r.orBad(err, w, t, `want "[" (field %q has %d dimensions), found %s`, f.Name, f.Dims, describe(t))
		}
		t, err := r.expect(w, tWord, "an array size")
		if err != nil {
			return err
		}
		s, ok := parseInt(t.text)
		if !ok || s < 0 {
			return r.bad(w, t, "field %q: bad array size %s", f.Name, describe(t))
		}
		if s != 0 && n > MaxElems/s {
			return r.bad(w, t, "field %q: array of more than %d elements", f.Name, MaxElems)
		}
		n *= s
		v.Dims[k] = s
		if _, err := r.expect(w, ']', `"]"`); err != nil {
			return err
		}
	}
	if _, err := r.expect(w, '{', `"{"`); err != nil {
		return err
	}
	if f.Type == Char {
		t, err := r.tok(w)
		if err != nil {
			return err
		}
		if t.kind == '}' && n == 0 {
			return nil
		}
		if t.kind != tString {
			return r.bad(w, t, "field %q: want a string, found %s", f.Name, describe(t))
		}
		switch len(t.text) {
		case n:
			v.Str = string(t.text)
		case n - 1: // the closing NUL is implied
			v.Str = string(append(t.text, 0))
		default:
			return r.bad(w, t, "field %q: string of %d bytes for %d chars", f.Name, len(t.text), n)
		}
		_, err = r.expect(w, '}', `"}"`)
		return err
	}
	if f.Type == Int {
		v.Ints = make([]int, 0, min(n, 4096))
	} else {
		v.Doubles = make([]float64, 0, min(n, 4096))
	}
	for k := 0; k < n; k++ {
		if k > 0 {
			if t, ok, err := r.want(w, ','); !ok {
				return r.orBad(err, w, t, `want "," (field %q has %d elements), found %s`, f.Name, n, describe(t))
			}
		}
		t, err := r.tok(w)
		if err != nil {
			return err
		}
		x, y, err := r.scalar(w, f, t, f.Type)
		if err != nil {
			return err
		}
		if f.Type == Int {
			v.Ints = append(v.Ints, x)
		} else {
			v.Doubles = append(v.Doubles, y)
		}
	}
	if t, ok, err := r.want(w, '}'); !ok {
		return r.orBad(err, w, t, `want "}" after %d elements of field %q, found %s`, n, f.Name, describe(t))
	}
	return nil
}
