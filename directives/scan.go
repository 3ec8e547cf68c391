package directives

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the kind of a lexical token of the directive language. Go
// expressions are not tokenised here: the parser cuts them out of the text
// with scanExpr and hands them to go/parser.
type tokKind int

const (
	tEOF    tokKind = iota // end of text, or a "//" remark
	tName                  // identifier or keyword
	tLparen                // (
	tRparen                // )
	tComma                 // ,
	tColon                 // :
	tDColon                // ::
	tSemi                  // ;
	tStar                  // *
	tOp                    // + & | ^ && ||
	tOther                 // anything else: a number or one character
)

// next reads the token at p.off into p.tok, p.lit and p.tokOff.
func (p *parser) next() {
	s := p.src
	for p.off < len(s) && isBlank(s[p.off]) {
		p.off++
	}
	start := p.off
	p.tokOff = start
	if start == len(s) || strings.HasPrefix(s[start:], "//") {
		p.tok, p.lit = tEOF, ""
		return
	}
	r, w := utf8.DecodeRuneInString(s[start:])
	p.off += w
	switch {
	case isLetter(r):
		p.off = wordEnd(s, p.off)
		p.tok = tName
	case '0' <= r && r <= '9':
		p.off = wordEnd(s, p.off)
		p.tok = tOther
	default:
		p.tok = tOther
		switch r {
		case '(':
			p.tok = tLparen
		case ')':
			p.tok = tRparen
		case ',':
			p.tok = tComma
		case ';':
			p.tok = tSemi
		case '*':
			p.tok = tStar
		case ':':
			p.tok = tColon
			if p.off < len(s) && s[p.off] == ':' {
				p.off++
				p.tok = tDColon
			}
		case '+', '^':
			p.tok = tOp
		case '&', '|':
			p.tok = tOp
			if p.off < len(s) && rune(s[p.off]) == r {
				p.off++
			}
		}
	}
	p.lit = s[start:p.off]
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func isLetter(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r == '_' ||
		r >= utf8.RuneSelf && unicode.IsLetter(r)
}

func isDigit(r rune) bool {
	return '0' <= r && r <= '9' || r >= utf8.RuneSelf && unicode.IsDigit(r)
}

// wordEnd returns the end of the run of letters and digits at s[i:].
func wordEnd(s string, i int) int {
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if !isLetter(r) && !isDigit(r) {
			break
		}
		i += w
	}
	return i
}

// scanExpr returns the end of the Go expression starting at s[i:]: the first
// byte of stop outside brackets and literals, an unmatched closing bracket, a
// "//" remark, or len(s). Brackets and literals are only balanced, not
// checked; go/parser reports what is wrong inside.
func scanExpr(s string, i int, stop string) int {
	var open []byte // expected closing brackets
	for i < len(s) {
		switch c := s[i]; c {
		case '"', '\'':
			i = skipQuoted(s, i+1, c)
			continue
		case '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return len(s)
			}
			i += j + 2
			continue
		case '/':
			if strings.HasPrefix(s[i:], "//") {
				return i
			}
			if strings.HasPrefix(s[i:], "/*") {
				j := strings.Index(s[i+2:], "*/")
				if j < 0 {
					return len(s)
				}
				i += j + 4
				continue
			}
		case '(':
			open = append(open, ')')
		case '[':
			open = append(open, ']')
		case '{':
			open = append(open, '}')
		case ')', ']', '}':
			if len(open) == 0 || open[len(open)-1] != c {
				return i
			}
			open = open[:len(open)-1]
		default:
			if len(open) == 0 && strings.IndexByte(stop, c) >= 0 {
				return i
			}
		}
		i++
	}
	return len(s)
}

// skipQuoted returns the end of the literal whose body starts at s[i:] and
// which is closed by q (or len(s) if it is not closed).
func skipQuoted(s string, i int, q byte) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case q:
			return i + 1
		}
		i++
	}
	return len(s)
}
