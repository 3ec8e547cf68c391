// Package trace holds the svmc event catalogue (the SDDF record descriptors of
// seed 002, appendices A and B) and the SDDF ASCII and binary codecs shared by
// the runtime (rtlib) and the analysis tools. It imports neither of them and
// uses the standard library only, so an instrumented program builds offline.
//
// # Streams
//
// An SDDF stream (Pablo's Self-Defining Data Format) is a header followed by
// packets of three kinds: stream attributes, record descriptors and data
// records. A descriptor precedes the first data record that uses it; tags and
// record names are unique within a stream (a repeated, identical descriptor
// is accepted). The stream is self-describing: Reader decodes records with
// the descriptors found in the stream, never with Catalog. Writer writes the
// header, the attributes given to NewWriter, then every descriptor of
// Catalog, then the data records.
//
// SDDF has four field types: char, int, float, double. A field is a scalar
// or an array of one or more dimensions ("x"[] or "x"[][]). There is no
// 64-bit integer: times are double microseconds, and wider integers (such as
// addresses) are split by the caller. A string is a one-dimensional char
// array whose size counts a closing NUL.
//
// # ASCII format (SDDFA)
//
// The stream starts with the line "SDDFA" (then "\n"; "\r\n" is accepted).
// Outside strings, spaces, tabs and line ends only separate tokens. Packets:
//
// Stream attributes, a block of "key" "value" pairs; svmc writes
//
//	/*
//	 * "key" "value"
//	 */ ;;
//
// The reader ignores '*' tokens inside the block and takes the ";;" after
// "*/" as optional. svmc writes the block only when there are attributes.
//
// A record descriptor, exactly as in seed 002's appendices (one tab before
// the type and one between type and name):
//
//	#1301:
//	// "event" "start a trace region"
//	"trace-region-start" {
//		int	"node id";
//		double	"clock microseconds";
//		int	"subprogram number";
//		int	"directive number";
//		int	"trace region type";
//	};;
//
// "//" introduces an attribute line "key" "value", not a comment. A
// descriptor may have several; the reader keeps the value of "event" (in
// Descriptor.Event) and ignores the others, and also accepts (and ignores)
// attribute lines before a field. An array field is written with one "[]"
// per dimension: int "template shape"[][];
//
// A data record, one per line, names its descriptor and lists the values in
// field order:
//
//	"trace-region-start" { 0, 12.5, 1, 0, 1 };;
//	"page-travel" { 1, 3.25, 2, 4096, 8192, [3] { 7, 8, 9 } };;
//	"template-info" { 0, 1, 3, 1, 2, 2, [2][2] { 1, 10, 1, 20 } };;
//	"aps-info" { 0, 1.5, [0] { } };;
//
// An int is decimal and must fit 32 bits. A float or double is printed by
// strconv 'g' with the shortest precision that reads back exactly (so 12.5,
// 1e-07, 1e+21, NaN, +Inf, -Inf, -0); any strconv.ParseFloat syntax is read.
// An array is its sizes, one [n] per dimension, then its elements row-major
// in braces, comma-separated ("[0] { }" when empty). A char scalar is a
// one-byte string "c". A char array of any dimension is its sizes then one
// string holding all its bytes row-major: [6] { "hello" } – when the last
// byte is a NUL it is left out of the string (the size still counts it), so
// the reader adds a NUL when the string is one byte shorter than the size.
//
// Strings (names, attribute keys and values, char data) are in double quotes
// with these escapes, so that any byte sequence (a JSON document, text with
// newlines, quotes or backslashes) can be stored:
//
//	\\  backslash          \n  newline (0x0a)
//	\"  double quote       \r  carriage return (0x0d)
//	\/  slash              \t  tab (0x09)
//	\xHH  any byte, two hex digits
//
// The writer escapes '\\' and '"', writes \n \r \t for those bytes, \xHH for
// the other bytes below 0x20 and for 0x7f, and "\/" for a '/' that follows
// '*', so that no "*/" occurs inside an attribute block. Bytes from 0x80 up
// (UTF-8) are written as they are. The reader accepts exactly these escapes
// and also takes raw control bytes inside a string literally.
//
// # Binary format (SDDFB)
//
// The stream starts with a 19-byte header: the five bytes "SDDFB", then 14
// one-byte data characteristics, in this order, with the values svmc writes:
//
//	offset  meaning                              value
//	5       header size in bytes                 19
//	6       byte order (0 big, 1 little-endian)  1
//	7       integer representation (0 = two's complement)  0
//	8       float representation (0 = IEEE)      0
//	9       double representation (0 = IEEE)     0
//	10      extra-float representation (unused)  0
//	11      char representation (0 = ASCII)      0
//	12      size of char                         1
//	13      size of short                        2
//	14      size of int                          4
//	15      size of long                         8
//	16      size of float                        4
//	17      size of double                       8
//	18      size of long double                  16
//
// The reader requires these values except the sizes of short, long and long
// double, which no SDDF type uses; big-endian streams are rejected.
//
// Then packets, all numbers little-endian, without padding or alignment:
//
//	int32 length   number of bytes that follow the length field (>= 4)
//	int32 kind     1 attributes, 2 descriptor, 3 data
//	...            the contents, by kind
//
// An int is an int32, a float a float32, a double a float64 (IEEE, little-
// endian), a char one byte. A string is an int32 byte count then the bytes
// (no NUL, no padding). The contents are:
//
// Kind 1, stream attributes:
//
//	int32 count
//	count times: string key, string value
//
// Kind 2, record descriptor:
//
//	int32  tag
//	string record name
//	int32  attribute count (svmc writes 1: "event" and its value, or 0
//	       when Event is empty)
//	attribute count times: string key, string value
//	int32  field count
//	field count times:
//	  int32  type (1 char, 2 int, 3 float, 4 double: FieldType's values)
//	  int32  dimensions (0 scalar, 1 for [], 2 for [][], at most MaxDims)
//	  string field name
//
// Kind 3, data record (the layout Buf appends):
//
//	int32 tag      the descriptor's tag
//	the fields in descriptor order: a scalar as its type; an array as one
//	int32 size per dimension, then the elements row-major (a char array's
//	bytes, a string's closing NUL included).
//
// A packet's contents must fill its length exactly. Since Buf holds data
// packets in this layout, the runtime's per-processor buffers are binary
// SDDF already: Writer.WriteBuf copies them to a binary stream after a
// structural check, and prints them one record a line to an ASCII stream.
//
// A binary stream a Writer closes ends with its run index: two attribute
// packets, "svmc.runs" listing the stream's runs as "length node" pairs
// (node -1 for descriptors and attributes) and a fixed 52-byte
// "svmc.runs-at" giving the first one's offset in 20 digits, so that a
// tool reading the processors' records apart finds them without scanning
// every packet (runs.go). Reader hides both; Writer drops the keys from
// attributes it is given; a stream without them is scanned.
//
// # Damaged input
//
// Reader returns every record before the damage, then a *CorruptError
//
//	trace: FILE: byte offset N (record "x" #k): what is wrong
//
// (FILE is "input" when the reader's source has no Name method). It never
// panics and never allocates more than the input holds: array sizes are
// checked against the bytes left in the packet (binary) or grow only as
// elements are parsed (ASCII), and the limits MaxPacket, MaxElems,
// MaxString, MaxFields, MaxDims and MaxAttrs bound every count.
package trace
