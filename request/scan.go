package request

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF     tokKind = iota
	tIdent           // a name or keyword: letter or '_', then letters, digits, '_'
	tNumber          // a digit, then letters, digits, '_' ("12", "64k"; checked by the parser)
	tAt              // "@" immediately followed by a name ("@MAIN")
	tIllegal         // a character that starts no token
	tLParen          // (
	tRParen          // )
	tLBrack          // [
	tRBrack          // ]
	tComma           // ,
	tDot             // .
	tColon           // :
	tMinus           // -
	tStar            // *
)

var punct = map[byte]tokKind{
	'(': tLParen, ')': tRParen, '[': tLBrack, ']': tRBrack, ',': tComma,
	'.': tDot, ':': tColon, '-': tMinus, '*': tStar,
}

type token struct {
	kind  tokKind
	text  string
	pos   Pos
	end   Pos  // just after the token
	first bool // the first token of its line
}

// scanner splits a request file into tokens. Spaces, tabs, carriage returns
// and line ends separate tokens; '#' or '!' where a token could start begins
// a comment that runs to the end of the line.
type scanner struct {
	file      string
	src       []byte
	off       int // next unread byte
	line      int // line of src[off]
	lineStart int // offset of the first byte of that line
	sawLine   bool
}

func newScanner(file string, src []byte) *scanner {
	s := &scanner{file: file, src: src, line: 1, sawLine: true}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off, s.lineStart = 3, 3 // a UTF-8 byte order mark
	}
	return s
}

func (s *scanner) pos() Pos { return Pos{s.file, s.line, s.off - s.lineStart + 1} }

// skip skips blanks, line ends and comments. It records whether a line end
// was passed.
func (s *scanner) skip() {
	for s.off < len(s.src) {
		switch c := s.src[s.off]; c {
		case ' ', '\t', '\r':
			s.off++
		case '\n':
			s.off++
			s.line++
			s.lineStart = s.off
			s.sawLine = true
		case '#', '!':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.off++
			}
		default:
			return
		}
	}
}

func (s *scanner) next() token {
	s.skip()
	t := token{pos: s.pos(), first: s.sawLine}
	s.sawLine = false
	start := s.off
	if s.off >= len(s.src) {
		t.kind = tEOF
		t.end = t.pos
		return t
	}
	c := s.src[s.off]
	switch {
	case isLetterAt(s.src, s.off):
		t.kind = tIdent
		s.word()
	case '0' <= c && c <= '9':
		t.kind = tNumber
		s.word()
	case c == '@' && isLetterAt(s.src, s.off+1):
		t.kind = tAt
		s.off++
		s.word()
	case punct[c] != 0:
		t.kind = punct[c]
		s.off++
	default:
		t.kind = tIllegal
		_, n := utf8.DecodeRune(s.src[s.off:])
		s.off += n
	}
	t.text = string(s.src[start:s.off])
	t.end = s.pos()
	return t
}

func isLetterAt(src []byte, off int) bool {
	if off >= len(src) {
		return false
	}
	if c := src[off]; c < utf8.RuneSelf {
		return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	r, _ := utf8.DecodeRune(src[off:])
	return unicode.IsLetter(r)
}

// word consumes letters, digits and '_'.
func (s *scanner) word() {
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c < utf8.RuneSelf {
			if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				s.off++
				continue
			}
			return
		}
		r, n := utf8.DecodeRune(s.src[s.off:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return
		}
		s.off += n
	}
}

// fileName scans the file name of an INCLUDE, on the same line: a Go string
// literal in double quotes, or a run of characters other than blanks. A
// '#' or '!' starts a comment there too. It returns the name, its position,
// and an error message if the name is missing or malformed.
func (s *scanner) fileName() (name string, pos Pos, msg string) {
	for s.off < len(s.src) && (s.src[s.off] == ' ' || s.src[s.off] == '\t' || s.src[s.off] == '\r') {
		s.off++
	}
	pos = s.pos()
	if s.off >= len(s.src) || s.src[s.off] == '\n' || s.src[s.off] == '#' || s.src[s.off] == '!' {
		return "", pos, "expected a file name after INCLUDE"
	}
	start := s.off
	if s.src[s.off] == '"' {
		s.off++
		for s.off < len(s.src) && s.src[s.off] != '"' && s.src[s.off] != '\n' {
			if s.src[s.off] == '\\' && s.off+1 < len(s.src) && s.src[s.off+1] != '\n' {
				s.off++
			}
			s.off++
		}
		if s.off >= len(s.src) || s.src[s.off] != '"' {
			return "", pos, "file name not terminated: a quoted name ends with '\"' on the same line"
		}
		s.off++
		lit := string(s.src[start:s.off])
		name, err := strconv.Unquote(lit)
		if err != nil {
			return "", pos, "bad file name " + lit + ": " + unquoteMsg(err)
		}
		if name == "" {
			return "", pos, "empty file name"
		}
		return name, pos, ""
	}
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			break
		}
		s.off++
	}
	return string(s.src[start:s.off]), pos, ""
}

func unquoteMsg(err error) string {
	if ne, ok := err.(*strconv.NumError); ok {
		return ne.Err.Error()
	}
	return err.Error()
}
